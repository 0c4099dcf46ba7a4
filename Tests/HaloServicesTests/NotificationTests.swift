import Foundation
import XCTest

@testable import HaloServices

/// Push payload parsing and classification (PROTOCOL §17.1) and activity events (§17.2).
final class NotificationTests: XCTestCase {
    func testAndroidDataPayload() throws {
        let image = String(decoding: try ContentFixture.data("android/halo-notifications/expandedNotification.json"), as: UTF8.self)
        let notification = HaloNotification(payload: [
            "scheduleId": "mypushId", "title": "Hello", "body": "World", "icon": "ic_halo", "sound": "tada",
            "badge": "3", "color": "#ff0000", "click_action": "OPEN", "url": "halo://news/1",
            "image": .string(image), "extra": #"{"article": 12}"#,
        ])
        XCTAssertEqual(notification.type, .normal)
        XCTAssertEqual(notification.scheduleId, "mypushId")
        XCTAssertEqual(notification.title, "Hello")
        XCTAssertEqual(notification.body, "World")
        XCTAssertEqual(notification.icon, "ic_halo")
        XCTAssertEqual(notification.sound, "tada")
        XCTAssertEqual(notification.badge, "3")
        XCTAssertEqual(notification.color, "#ff0000")
        XCTAssertEqual(notification.clickAction, "OPEN")
        XCTAssertEqual(notification.url, "halo://news/1")
        XCTAssertEqual(notification.image?.layout, .expanded)
        XCTAssertEqual(notification.image?.url, "http://cdn.shopify.com/s/files/1/0920/5124/t/4/assets/logo.png?1884641834595042276")
        XCTAssertEqual(notification.extra, ["article": 12])
        XCTAssertEqual(notification.payload["badge"], "3")
    }

    func testEveryImageFixtureAsAnEmbeddedPayloadValue() throws {
        for name in ["background", "bottom", "default", "expanded", "left", "right", "top", "test"] {
            let text = String(decoding: try ContentFixture.data("android/halo-notifications/\(name)Notification.json"), as: UTF8.self)
            let notification = HaloNotification(payload: ["image": .string(text)])
            XCTAssertEqual(notification.image?.layout.rawValue, name == "test" ? "expanded" : name)
        }
        XCTAssertNil(HaloNotification(payload: ["image": "not json"]).image)
    }

    func testClassification() throws {
        XCTAssertEqual(HaloNotification(payload: ["content_available": "1"]).type, .silent)
        XCTAssertEqual(HaloNotification(payload: ["content_available": 1]).type, .silent)
        XCTAssertEqual(HaloNotification(payload: ["aps": ["content-available": 1]]).type, .silent)
        XCTAssertEqual(HaloNotification(payload: ["content_available": "0", "title": "t"]).type, .normal)
        let twoFactor = HaloNotification(payload: ["type": "2_factor", "code": "123456"])
        XCTAssertEqual(twoFactor.type, .twoFactor)
        XCTAssertEqual(twoFactor.code, "123456")
        XCTAssertEqual(
            HaloNotification(payload: ["type": "2_FACTOR", "content_available": "1"]).type, .silent,
            "silent wins over two-factor")
        XCTAssertEqual(HaloNotification(payload: ["type": "other"]).type, .normal)
    }

    func testIOSUserInfo() throws {
        let userInfo: [AnyHashable: Any] = [
            "aps": ["alert": ["title": "iOS title", "body": "iOS body"], "sound": "default", "badge": 2] as [String: Any],
            "scheduleId": "s1", "extra": "plain text",
        ]
        let notification = HaloNotification(userInfo: userInfo)
        XCTAssertEqual(notification.title, "iOS title")
        XCTAssertEqual(notification.body, "iOS body")
        XCTAssertEqual(notification.sound, "default")
        XCTAssertEqual(notification.badge, "2")
        XCTAssertEqual(notification.extra, "plain text")
        XCTAssertEqual(notification.type, .normal)
        XCTAssertEqual(notification.userInfo["scheduleId"] as? String, "s1")
        XCTAssertEqual((notification.userInfo["aps"] as? [String: Any?])?["badge"] as? Int, 2)
        XCTAssertEqual(HaloNotification(userInfo: ["aps": ["alert": "Just text"]]).body, "Just text")
        XCTAssertThrowsError(try HaloNotification(payload: JSONValue.array([])))
    }

    func testActivityEventBodies() throws {
        let notification = HaloNotification(payload: ["scheduleId": "mypushId"])
        for action in NotificationAction.allCases {
            let event = try XCTUnwrap(NotificationActivityEvent(notification: notification, deviceAlias: "myalias", action: action))
            let file =
                "android/halo-notifications/actionNotification\(action.rawValue.prefix(1).uppercased() + action.rawValue.dropFirst()).json"
            XCTAssertEqual(event.wireJSON, try ContentFixture.json(file), "the server's echo equals what was sent")
        }
        let withPlatform = NotificationActivityEvent(device: "a", schedule: "s", action: .open, platform: "android")
        XCTAssertEqual(withPlatform.wireJSON, ["device": "a", "schedule": "s", "action": "open", "platform": "android"])
        XCTAssertEqual(
            withPlatform.formFields.map { "\($0.name)=\($0.value)" }, ["device=a", "schedule=s", "action=open", "platform=android"])
        XCTAssertNil(NotificationActivityEvent(notification: HaloNotification(payload: [:]), deviceAlias: "a", action: .open))
        XCTAssertThrowsError(try NotificationActivityEvent(wire: ["device": "a", "schedule": "s", "action": "explode"]))
    }
}
