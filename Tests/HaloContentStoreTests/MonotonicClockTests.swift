import Foundation
import Synchronization
import XCTest

@testable import HaloContentStore

final class MonotonicClockTests: XCTestCase {
    func testStrictlyIncreasingWithinOneMillisecondAndWhenWallClockStepsBack() {
        let wall = Mutex<Int64>(1_000)
        let clock = MonotonicClock { wall.withLock { $0 } }
        XCTAssertEqual(clock.next(), 1_000)
        XCTAssertEqual(clock.next(), 1_001)  // same wall millisecond
        wall.withLock { $0 = 500 }  // wall clock stepped back
        XCTAssertEqual(clock.next(), 1_002)
        wall.withLock { $0 = 5_000 }
        XCTAssertEqual(clock.next(), 5_000)
    }

    func testWriteAfterSyncTimestampGetsLargerStamp() {
        let wall = Mutex<Int64>(2_000)
        let clock = MonotonicClock { wall.withLock { $0 } }
        let write1 = clock.next()
        let syncStamp = clock.current()
        XCTAssertGreaterThanOrEqual(syncStamp, write1, "a sync window must include writes already made")
        let write2 = clock.next()  // same wall millisecond as the sync stamp
        XCTAssertGreaterThan(write2, syncStamp, "a later write must fall in the next window")
        wall.withLock { $0 = 1_000 }
        XCTAssertGreaterThanOrEqual(clock.current(), write2)
    }

    func testConcurrentCallersNeverGetTheSameStamp() async {
        let clock = MonotonicClock()
        let stamps = await withTaskGroup(of: [Int64].self) { group in
            for _ in 0..<8 { group.addTask { (0..<2_000).map { _ in clock.next() } } }
            var all: [Int64] = []
            for await part in group { all += part }
            return all
        }
        XCTAssertEqual(Set(stamps).count, stamps.count)
    }
}
