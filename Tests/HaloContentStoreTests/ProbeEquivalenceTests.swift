import GRDB
import XCTest

@testable import HaloContentStore

/// Narrowed `and`s look up their candidates one by one instead of scanning index ranges. Both
/// strategies must give the same answer for every filter: compare them on random filters.
final class ProbeEquivalenceTests: XCTestCase {
    func testProbingAndScanningAgree() throws {
        let db = try makeContentDatabase()
        var rng = SystemRandomNumberGenerator()
        let words = ["red", "Green", "blue", "ÉTÉ", "road", "Roadster"]
        try db.write { db in
            try ContentTables.upsert(
                contentsOf: (1...400).map { n in
                    var values: [String: JSONValue] = [
                        "price": .number(Double(Int.random(in: 0..<100, using: &rng))),
                        "flag": Bool.random(using: &rng) ? .bool(true) : .string("false"),
                        "word": .string(words.randomElement(using: &rng) ?? ""),
                        "list": .array(
                            (0..<Int.random(in: 0...3, using: &rng)).map { _ in .number(Double(Int.random(in: 0..<5, using: &rng))) }),
                    ]
                    if n % 4 == 0 { values["price"] = nil }
                    if n % 9 == 0 { values["word"] = .null }
                    return instance(n, module: "m\(n % 2)", values: values, createdAt: Int64(n), deletedAt: n % 17 == 0 ? 99 : nil)
                }, in: db)
        }
        let leaves: [FilterNode] = [
            .compare("price", .less, 30), .compare("price", .greaterOrEqual, "60"), .compare("price", .equal, nil),
            .compare("price", .notEqual, 10), .compare("flag", .equal, true), .compare("flag", .notEqual, "true"),
            .compare("word", .like, "ROAD"), .compare("word", .in, ["red", "blue"]), .compare("word", .notIn, ["été"]),
            .compare("word", .equal, nil), .compare("list", .equal, 3), .compare("list", .greater, 2),
            .compare("list", .notEqual, nil), .compare("missing", .notEqual, 1),
        ]
        func randomTree(_ depth: Int) -> FilterNode {
            if depth == 0 || Int.random(in: 0..<3, using: &rng) == 0 { return leaves.randomElement(using: &rng) ?? leaves[0] }
            let operands = (0..<Int.random(in: 1...3, using: &rng)).map { _ in randomTree(depth - 1) }
            return Bool.random(using: &rng) ? .condition(.and, operands) : .condition(.or, operands)
        }
        try db.read { db in
            let universe = try KeyScan.rowSet("SELECT pk FROM content_instance WHERE module = 'm1'", capacity: 401, in: db)
            for _ in 0..<150 {
                let tree = FilterNode.and(leaves.randomElement(using: &rng) ?? leaves[0], randomTree(3))
                var scanning = FilterEvaluator(db: db, universe: universe, moduleScope: ["m1"], capacity: 401)
                scanning.probeRatio = 0
                var probing = scanning
                probing.probeRatio = 1
                probing.candidates = universe
                var scanned = try scanning.evaluate(tree, on: .values)
                scanned.formIntersection(universe)
                var probed = try probing.evaluate(tree, on: .values)
                probed.formIntersection(universe)
                XCTAssertEqual(probed.members, scanned.members, "\(tree)")
            }
        }
    }
}
