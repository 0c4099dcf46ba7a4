import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// The Send Notification window against a real server: checks at the row, a notification sent to
/// every device reaches the workspace's own device (its receipt counted in the history), and a
/// scheduled one can be withdrawn before it goes out.
final class SendNotificationTests: XCTestCase {
    func testWriteSendScheduleAndWithdraw() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness(liveUpdates: true)
            defer {
                harness.view.sendNotificationWindow?.window.destroy()
                harness.tearDown()
            }
            harness.view.showSendNotification()
            let window = try XCTUnwrap(harness.view.sendNotificationWindow)
            XCTAssertTrue(harness.pump { window.completedRequests > 0 }, "the history was not read")
            XCTAssertFalse(window.sendButton.isSensitive, "nothing to send without a title")

            // The preview follows the form.
            window.titleRow.asEditable.text = "Spring sale"
            window.bodyRow.asEditable.text = "New prices on every product"
            XCTAssertEqual(window.previewTitle.text, "Spring sale")
            XCTAssertEqual(window.previewBody.text, "New prices on every product")
            XCTAssertTrue(window.sendButton.isSensitive)

            // A tag without a name is refused at its row, before anything is sent.
            window.audienceRow.selectedIndex = SendNotificationWindow.Audience.tagged.rawValue
            XCTAssertTrue(window.audienceDetailRow.isVisible)
            window.audienceDetailRow.asEditable.text = "= desktop"
            window.send()
            XCTAssertTrue(window.problemLabel.isVisible)
            XCTAssertTrue(window.problemLabel.text.contains("name = value"), window.problemLabel.text)
            XCTAssertEqual(window.history.count, 0)

            // The instance it opens, picked by name; changing the form clears what was said.
            window.audienceRow.selectedIndex = SendNotificationWindow.Audience.everyone.rawValue
            XCTAssertFalse(window.problemLabel.isVisible, "the problem was about the form before the change")
            window.linkPicker.open()
            window.linkPicker.searchEntry.text = "Ada"
            XCTAssertTrue(harness.pump { window.linkPicker.resultButtons.contains { $0.choice.name == "Ada Lovelace" } })
            window.linkPicker.resultButtons.first { $0.choice.name == "Ada Lovelace" }?.button.click()
            XCTAssertEqual(window.link?.name, "Ada Lovelace")
            XCTAssertTrue(window.previewAudience.text.contains("Opens Ada Lovelace"), window.previewAudience.text)
            try GUITestEnvironment.screenshots(of: window.window, named: "send-notification")
            let unnamed = AccessibilityAudit.unnamedControls(in: window.window.widget)
            XCTAssertEqual(unnamed, [], "controls without an accessible name:\n" + unnamed.joined(separator: "\n"))

            // Sent to every device: the workspace's own device receives it and reports its receipt.
            var requests = window.completedRequests
            window.send()
            XCTAssertTrue(harness.pump { window.completedRequests > requests && window.history.count == 1 })
            XCTAssertFalse(window.problemLabel.isVisible, window.problemLabel.text)
            let sent = try XCTUnwrap(window.history.first)
            XCTAssertEqual(sent.status, .sent)
            XCTAssertEqual(sent.title, "Spring sale")
            XCTAssertNotNil(sent.instanceId)
            XCTAssertEqual(window.titleRow.asEditable.text, "", "the form is ready for the next one")
            for _ in 0..<20 where window.history.first?.receipts != 1 {
                requests = window.completedRequests
                window.loadHistory()
                harness.pump { window.completedRequests > requests }
                harness.pump(timeout: 0.25) { false }
            }
            XCTAssertEqual(window.history.first?.receipts, 1, "the workspace's device received it")
            XCTAssertTrue(
                window.historyRows[sent.id]?.subtitle.contains("every device · received 1 · opened 0") ?? false,
                window.historyRows[sent.id]?.subtitle ?? "no row")

            // Scheduled for tomorrow, then withdrawn.
            window.titleRow.asEditable.text = "Tomorrow's news"
            window.timeRow.selectedIndex = 1
            XCTAssertEqual(window.sendButton.label, "_Schedule")
            window.send()
            XCTAssertTrue(window.problemLabel.text.contains("Pick when"), window.problemLabel.text)
            let tomorrow = Calendar.current.dateComponents([.year, .month, .day], from: Date().addingTimeInterval(86_400))
            window.dateInput.choose(year: tomorrow.year ?? 0, month: tomorrow.month ?? 0, day: tomorrow.day ?? 0, time: "09:30")
            requests = window.completedRequests
            window.send()
            XCTAssertTrue(harness.pump { window.history.count == 2 }, window.problemLabel.text)
            let scheduled = try XCTUnwrap(window.history.first { $0.title == "Tomorrow's news" })
            XCTAssertEqual(scheduled.status, .scheduled)
            XCTAssertTrue(window.historyRows[scheduled.id]?.subtitle.hasPrefix("Goes out") ?? false)
            try GUITestEnvironment.screenshots(of: window.window, named: "send-notification-history")
            try XCTUnwrap(window.withdrawButtons[scheduled.id]).click()
            XCTAssertTrue(harness.pump { window.history.first { $0.id == scheduled.id }?.status == .cancelled })
            XCTAssertNil(window.withdrawButtons[scheduled.id], "nothing left to withdraw")
            XCTAssertTrue(window.historyRows[scheduled.id]?.subtitle.hasPrefix("Withdrawn") ?? false)
        }
    }
    /// The bytes a notification carries (title, text and the instance it opens, as compact JSON)
    /// are counted as the user types, as the server counts them: exactly 4,096 bytes is sent (the
    /// server takes it), one more is said in words at the form and Send waits, so the user never
    /// meets the server's refusal. Four-byte characters, so bytes are not characters.
    func testTheBytesLeftAreShownAndSendWaitsUntilItFits() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness()
            defer {
                harness.view.sendNotificationWindow?.window.destroy()
                harness.tearDown()
            }
            harness.view.showSendNotification()
            let window = try XCTUnwrap(harness.view.sendNotificationWindow)
            XCTAssertTrue(harness.pump { window.completedRequests > 0 }, "the history was not read")
            // `{"data":{},"notification":{"title":""}}`: what an empty form would carry.
            XCTAssertEqual(window.sizeLabel.text, "4,057 of 4,096 bytes left")

            window.titleRow.asEditable.text = "Spring sale"
            XCTAssertEqual(window.sizeLabel.text, "4,046 of 4,096 bytes left")
            // {"data":{},"notification":{"body":"…","title":"…"}}: 49 bytes around the texts.
            let body = String(repeating: "😀", count: 1_000)
            let title = String(repeating: "😀", count: 11) + "abc"
            XCTAssertEqual(49 + body.utf8.count + title.utf8.count, 4_096)
            window.bodyRow.asEditable.text = body
            window.titleRow.asEditable.text = title
            XCTAssertEqual(window.sizeLabel.text, "0 of 4,096 bytes left")
            XCTAssertTrue(window.sendButton.isSensitive)

            window.titleRow.asEditable.text = title + "d"
            XCTAssertEqual(
                window.sizeLabel.text,
                "1 byte too long: a notification carries at most 4,096 bytes. Shorten the title or the text to send it.")
            XCTAssertTrue(window.sizeLabel.hasCSSClass("error"))
            XCTAssertFalse(window.sendButton.isSensitive, "Send waits until it fits")
            XCTAssertEqual(window.sendButton.tooltip, window.sizeLabel.text)
            try GUITestEnvironment.screenshots(of: window.window, named: "send-notification-too-long")

            window.titleRow.asEditable.text = title
            XCTAssertFalse(window.sizeLabel.hasCSSClass("error"))
            try GUITestEnvironment.screenshots(of: window.window, named: "send-notification-bytes-left")
            let requests = window.completedRequests
            window.send()
            XCTAssertTrue(harness.pump { window.completedRequests > requests && window.history.count == 1 })
            XCTAssertFalse(window.problemLabel.isVisible, "the server took exactly 4,096 bytes: \(window.problemLabel.text)")
            XCTAssertEqual(window.history.first?.body, body)
            XCTAssertEqual(window.sizeLabel.text, "4,057 of 4,096 bytes left", "the form is empty again")
        }
    }
}
