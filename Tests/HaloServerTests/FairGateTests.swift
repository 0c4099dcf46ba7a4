import Synchronization
import XCTest

@testable import HaloServer

/// The gate searches (and syncs' database reads) pass through: never more than its width inside,
/// and the waiting ones enter in the order they arrived.
final class FairGateTests: XCTestCase {
    private final class Record: Sendable {
        let inside = Mutex((now: 0, most: 0))
        let order = Mutex([Int]())
    }

    func testNeverMoreThanItsWidthInside() async throws {
        let gate = FairGate(width: 2)
        let record = Record()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await gate.run {
                        record.inside.withLock {
                            $0.now += 1; $0.most = max($0.most, $0.now)
                        }
                        try await Task.sleep(for: .milliseconds(20))
                        record.inside.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        XCTAssertEqual(record.inside.withLock { $0.most }, 2)
        XCTAssertEqual(gate.waitingCount, 0)
    }

    func testTheWaitingEnterInArrivalOrder() async throws {
        let gate = FairGate(width: 2)
        await gate.enter()
        await gate.enter()
        let record = Record()
        var tasks: [Task<Void, any Error>] = []
        for index in 0..<5 {
            tasks.append(
                Task {
                    try await gate.run {
                        record.order.withLock { $0.append(index) }
                        try await Task.sleep(for: .milliseconds(5))
                    }
                })
            // The next one arrives only once this one waits.
            while gate.waitingCount < index + 1 { try await Task.sleep(for: .milliseconds(1)) }
        }
        XCTAssertEqual(record.order.withLock { $0 }, [], "nobody enters a full gate")
        gate.leave()  // one place cycles through the five, one at a time
        for task in tasks { try await task.value }
        XCTAssertEqual(record.order.withLock { $0 }, [0, 1, 2, 3, 4])
        gate.leave()
        XCTAssertEqual(gate.waitingCount, 0)
    }
}
