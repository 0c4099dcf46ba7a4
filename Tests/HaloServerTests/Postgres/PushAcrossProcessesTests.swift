import Foundation
import HaloContentStore
import HaloTestSupport
import XCTest

@testable import HaloServer

/// Scheduled notifications on a database three server processes share: each process's scheduler
/// looks for due schedules at once, and each schedule still goes out exactly once.
final class PushAcrossProcessesTests: XCTestCase {
    func testEachScheduleGoesOutOnceWhateverTheProcesses() async throws {
        let processes = try await serverProcesses(3)
        let first = processes[0]
        defer { processes.forEach { $0.close() } }

        let now = MonotonicClock.systemMilliseconds()
        try await first.write { db in
            for n in 0..<30 {
                // Ten already due, the others falling due while the schedulers run.
                try PushScheduleRecord(
                    id: "s\(n)", appId: 1, name: "Push \(n)", sendOn: now + Int64(n >= 10 ? (n - 10) * 20 : -1_000), sentAt: nil,
                    cancelledAt: nil, audienceJson: #"{"appId":1}"#, payloadJson: #"{"notification":{"title":"Hi"}}"#,
                    createdBy: "Ann", createdAt: now
                ).insert(db)
            }
        }
        let sent = try await withThrowingTaskGroup(of: Int.self) { group in
            for storage in processes.map({ ServerStorage.postgres($0) }) {
                group.addTask {
                    var total = 0
                    for _ in 0..<30 {
                        total += try await PushScheduler.sendDue(storage)
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    return total
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        XCTAssertEqual(sent.reduce(0, +), 30, "sent per process: \(sent)")
        XCTAssertGreaterThan(sent.filter { $0 > 0 }.count, 1, "more than one process sent some: \(sent)")
        let scheduleIds = try await first.read { db in
            try db.fetchColumn(String.self, "SELECT data_json FROM server_event WHERE kind = 'notification'")
                .map { try JSONValue(string: $0)["scheduleId"]?.stringValue ?? "?" }
        }
        XCTAssertEqual(scheduleIds.count, 30)
        XCTAssertEqual(Set(scheduleIds).count, 30, "a schedule went out twice")
        let unsent = try await first.read { db in
            try db.fetchValue(Int64.self, "SELECT count(*) FROM server_push_schedule WHERE sent_at IS NULL")
        }
        XCTAssertEqual(unsent, 0)
    }
}
