import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// What reaches the desktop for the notifications the add-on delivers (the notification server
/// itself is checked by `AppLaunchTests.testDesktopNotificationOpensItsInstance`).
final class DesktopNotificationsTests: XCTestCase {
    private static func notification(_ schedule: String, title: String?, data: [String: JSONValue] = [:]) -> HaloNotification {
        var payload: [String: JSONValue] = ["scheduleId": .string(schedule)]
        if let title { payload["title"] = .string(title) }
        payload["body"] = .string("Body of \(schedule)")
        payload.merge(data) { $1 }
        return HaloNotification(payload: payload)
    }

    func testEachOneLinksWhereItPointsAndABurstBecomesOneSummary() throws {
        try MainActor.assumeIsolated {
            try GUITestEnvironment.initializeGTK()
            let desktop = DesktopNotifications()
            desktop.receive(Self.notification("s1", title: "Spring sale", data: ["instance": "i-42", "module": "m-1"]))
            desktop.receive(Self.notification("s2", title: "Docs", data: ["url": "https://example.com/docs"]))
            desktop.receive(Self.notification("s3", title: nil, data: ["url": "javascript:alert(1)"]))
            desktop.receive(Self.notification("quiet", title: "Sync", data: ["content_available": "1", "module": "m-1"]))
            XCTAssertTrue(MainLoopBridge.iterate(until: { desktop.shown.count == 3 }, timeout: 5), "\(desktop.shown.map(\.id))")
            let byId = Dictionary(uniqueKeysWithValues: desktop.shown.map { ($0.id, $0) })
            XCTAssertEqual(byId["s1"]?.title, "Spring sale")
            XCTAssertEqual(byId["s1"]?.body, "Body of s1")
            XCTAssertEqual(byId["s1"]?.target, NotificationTarget(notificationId: "s1", instanceId: "i-42"))
            XCTAssertEqual(byId["s2"]?.target.url, "https://example.com/docs")
            XCTAssertEqual(byId["s3"]?.title, "Body of s3", "without a title the body is the title")
            XCTAssertNil(byId["s3"]?.target.url, "only web addresses are opened")
            XCTAssertNil(byId["quiet"], "a silent push shows nothing")
            XCTAssertEqual(
                NotificationTarget(text: try XCTUnwrap(byId["s1"]).target.text), byId["s1"]?.target, "the target survives as text")

            // Opening the linked instance in the app withdraws its notification, and only that one.
            desktop.instanceOpened("i-42")
            XCTAssertEqual(desktop.withdrawn, ["s1"])
            XCTAssertEqual(Set(desktop.shown.map(\.id)), ["s2", "s3"])

            // Seven at once (after waking up): one summary naming the first three.
            for number in 1...7 { desktop.receive(Self.notification("b\(number)", title: "Burst \(number)")) }
            XCTAssertTrue(MainLoopBridge.iterate(until: { desktop.shown.count == 3 }, timeout: 5), "\(desktop.shown.map(\.id))")
            let summary = try XCTUnwrap(desktop.shown.last)
            XCTAssertEqual(summary.id, DesktopNotifications.summaryId)
            XCTAssertEqual(summary.title, "7 New Notifications")
            XCTAssertEqual(summary.body, "• Burst 1\n• Burst 2\n• Burst 3\nand 4 more")
        }
    }
}
