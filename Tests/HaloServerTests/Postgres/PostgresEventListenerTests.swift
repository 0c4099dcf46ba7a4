import Foundation
import HaloContentStore
import HaloTestSupport
import Logging
import XCTest

@testable import HaloServer

/// Events committed by one server process reach the event streams of another through LISTEN/NOTIFY
/// (ids only, rows read from the table), a rolled-back one never does, and after PostgreSQL
/// restarts the listener connects again by itself.
final class PostgresEventListenerTests: XCTestCase {
    func testEventsOfOneProcessReachTheStreamsOfAnother() async throws {
        let cluster = try PostgresCluster.shared()
        let processes = try await serverProcesses(2)
        let (writer, reader) = (processes[0], processes[1])
        defer { processes.forEach { $0.close() } }
        let broker = EventBroker(limits: ServerLimits())
        let listener = PostgresEventListener(
            storage: reader, broker: broker, reconnectDelay: .milliseconds(100), logger: Logger(label: "test"))
        listener.start()
        defer { listener.stop() }
        let stream = try broker.subscribe(token: "t")
        defer { broker.close(stream) }

        /// Records an event for `instance` in the writing process; returns its id.
        @discardableResult
        func record(_ instance: String, failing: Bool = false) async throws -> Int64 {
            struct Refused: Error {}
            return try await writer.write { db in
                try EventLog.recordContentChange(.created, module: "m", instance: instance, by: "Ann", at: 1, in: db)
                if failing { throw Refused() }
                return try EventLog.latestId(in: db)
            }
        }
        /// The instance of event `id` once the other process's broker holds it (nil after 10 s: a
        /// busy `make check` once took over 2 s).
        func published(_ id: Int64) async throws -> String? {
            for _ in 0..<200 {
                if let event = broker.recentEvents(after: id - 1, limit: 1)?.first, event.id == id {
                    return try JSONValue(string: event.data)["instance"]?.stringValue
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            return nil
        }

        // The listener connects in the background: wait until it hears a first event.
        var heard = false
        for attempt in 0..<20 where !heard {
            heard = try await published(try await record("warm-up \(attempt)")) == "warm-up \(attempt)"
        }
        XCTAssertTrue(heard, "no event reached the other process")
        // Each event is awaited before the next is written: the id the rolled-back event took
        // leaves a gap, and the broker restarts its window at a gap (a stream must never skip an
        // event still to commit), so "i1" leaves memory once "i2" is published.
        let first = try await record("i1")
        let firstHeard = try await published(first)
        let rolledBack = try await writer.read { db in try EventLog.latestId(in: db) } + 1
        do {
            try await record("rolled back", failing: true)
            XCTFail("the failing write committed")
        } catch {}
        let second = try await record("i2")
        let secondHeard = try await published(second)
        XCTAssertEqual(firstHeard, "i1")
        XCTAssertEqual(secondHeard, "i2")
        XCTAssertEqual(second, rolledBack + 1, "the rolled-back event took an id, and never came")
        XCTAssertNotEqual(broker.recentEvents(after: rolledBack - 1, limit: 1)?.first?.id, rolledBack)

        // PostgreSQL restarts: the listener's connection is cut and comes back.
        try cluster.restart()
        heard = false
        for attempt in 0..<20 where !heard {
            heard = try await published(try await record("after restart \(attempt)")) == "after restart \(attempt)"
        }
        XCTAssertTrue(heard, "no event reached the other process after PostgreSQL restarted")
    }
}
