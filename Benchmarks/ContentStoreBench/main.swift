// bench-content-store: builds a 100,000-instance content database (10 modules, ~700 bytes of
// values each), times the search language on it, and compares with the naive json_extract scan
// of the same predicate in the sqlite3 CLI.
//
//   swift run -c release bench-content-store [--count 100000] [--runs 60] [--db path] [--keep] [--reuse] [--breakdown]
import Foundation
import GRDB
import HaloContentStore

struct Options {
    var count = 100_000
    var runs = 60
    var path: String?
    var keep = false
    /// Search an existing database from an earlier `--keep` run instead of building one.
    var reuse = false
    /// Also time each part of the filter on its own.
    var breakdown = false

    init(_ arguments: [String]) throws {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--count": count = try Self.int(iterator.next(), argument)
            case "--runs": runs = try Self.int(iterator.next(), argument)
            case "--db": path = iterator.next()
            case "--keep": keep = true
            case "--reuse": reuse = true
            case "--breakdown": breakdown = true
            default: throw BenchError("unknown argument \(argument)")
            }
        }
    }

    static func int(_ text: String?, _ name: String) throws -> Int {
        guard let text, let value = Int(text), value > 0 else { throw BenchError("\(name) needs a positive number") }
        return value
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

let words = [
    "alpha", "bravo", "cabin", "delta", "ember", "fable", "grove", "harbor", "island", "jungle",
    "koala", "lumen", "meadow", "nectar", "orbit", "prism", "quartz", "raven", "sable", "tundra",
]

func makeInstances(count: Int) -> [WireInstance] {
    var rng = SplitMix64(seed: 42)  // deterministic data: the same database every run
    func sentence(_ n: Int) -> String { (0..<n).map { _ in words.randomElement(using: &rng) ?? "" }.joined(separator: " ") }
    return (0..<count).map { n in
        let values: [String: JSONValue] = [
            "title": .string(sentence(4)),
            "price": .number(Double(Int.random(in: 0..<1_000, using: &rng))),
            "inStock": .bool(Bool.random(using: &rng)),
            "rating": .number(Double(Int.random(in: 0..<50, using: &rng)) / 10),
            "category": .string(words[n % words.count]),
            "releaseDate": .number(Double(1_400_000_000_000 + Int64(n) * 60_000)),
            "colors": .array((0..<3).map { _ in .string(words.randomElement(using: &rng) ?? "") }),
            "summary": .string(sentence(56)),
            "author": .string(String(format: "%024x", Int.random(in: 0..<count, using: &rng))),
            "translations": .object(["en-US": .string(sentence(5)), "es-ES": .string(sentence(5))]),
        ]
        return WireInstance(
            id: String(format: "%024x", n), module: String(format: "m%02d", n % 10), name: sentence(3),
            values: values, tags: n % 7 == 0 ? [WireTag(name: "segment", value: "beta")] : [],
            createdAt: 1_500_000_000_000 + Int64(n) * 1_000, publishedAt: 1_500_000_000_000,
            createdBy: "Bench", customerId: 1, revision: 0)
    }
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

/// CPU time of the calling thread in ms: unlike wall time, not inflated when other processes
/// compete for the cores (the build machine is shared).
func threadCPUms() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) * 1e3 + Double(spec.tv_nsec) / 1e6
}

func timeIt(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// Runs SQL `runs` times in the sqlite3 CLI with `.timer on`; returns (real, user+sys) times in
/// ms and the last result line printed.
func sqliteCLITimes(path: String, sql: String, runs: Int) throws -> (times: [(real: Double, cpu: Double)], result: String) {
    let text = try sqliteCLI(path: path, script: ".timer on\n" + String(repeating: sql + "\n", count: runs))
    // "Run Time: real 0.123 user 0.100000 sys 0.010000"
    let times = text.split(separator: "\n").compactMap { line -> (Double, Double)? in
        let parts = line.split(separator: " ")
        guard line.hasPrefix("Run Time: real "), parts.count >= 8,
            let real = Double(parts[3]), let user = Double(parts[5]), let sys = Double(parts[7])
        else { return nil }
        return (real * 1000, (user + sys) * 1000)
    }
    let result = text.split(separator: "\n").last { !$0.hasPrefix("Run Time:") }.map(String.init) ?? ""
    return (times, result)
}

/// Feeds a script to the sqlite3 CLI and returns what it printed.
func sqliteCLI(path: String, script: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [path]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data((script + "\n.quit\n").utf8))
    try input.fileHandleForWriting.close()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchError("sqlite3 failed on \(path)") }
    return text
}

/// The naive baseline the issue names: a plain table (id, module, body JSON) in a fresh file,
/// no index but the id key, holding what a search reads (createdAt, deletedAt, values).
func makeNaiveDatabase(from storePath: String, at naivePath: String) throws {
    if FileManager.default.fileExists(atPath: naivePath) { try FileManager.default.removeItem(atPath: naivePath) }
    _ = try sqliteCLI(
        path: naivePath,
        script: """
            ATTACH '\(storePath)' AS store;
            CREATE TABLE instance (id TEXT PRIMARY KEY, module TEXT NOT NULL, body TEXT NOT NULL);
            INSERT INTO instance
                SELECT i.id, i.module, json_object('createdAt', i.created_at, 'deletedAt', i.deleted_at, 'values', json(b.values_json))
                FROM store.content_instance i JOIN store.content_body b ON b.pk = i.pk ORDER BY i.pk;
            """)
}

func run() throws {
    let options = try Options(CommandLine.arguments)
    let path =
        options.path
        ?? FileManager.default.temporaryDirectory
        .appendingPathComponent("bench-content-\(ProcessInfo.processInfo.processIdentifier).sqlite").path
    let reuse = options.reuse && FileManager.default.fileExists(atPath: path)
    if !reuse, FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    defer { if !options.keep && !options.reuse { try? FileManager.default.removeItem(atPath: path) } }
    let queue = try DatabaseQueue(path: path)
    if !reuse {
        var migrator = DatabaseMigrator()
        ContentTables.registerMigrations(&migrator)
        try migrator.migrate(queue)
        let instances = makeInstances(count: options.count)
        let bytes = instances.prefix(1_000).map { JSONValue.object($0.values).compactJSONText.utf8.count }.reduce(0, +) / 1_000
        let cpuStart = threadCPUms()
        let insertMs = try timeIt { try queue.write { try ContentTables.upsert(contentsOf: instances, in: $0) } }
        let insertCPU = threadCPUms() - cpuStart
        try queue.writeWithoutTransaction { try $0.execute(sql: "ANALYZE") }
        print(
            """
            bulk upsert: \(options.count) instances (~\(bytes) bytes of values each) in one transaction: \
            \(String(format: "%.2f", insertMs / 1000)) s wall, \(String(format: "%.2f", insertCPU / 1000)) s cpu
            """)
    }

    // HALO's `like` wants 3+ characters; "abi" (only in "cabin") is in about 19% of titles.
    let likeText = "abi"
    let naivePath = path + ".naive"
    try makeNaiveDatabase(from: path, at: naivePath)
    defer { try? FileManager.default.removeItem(atPath: naivePath) }
    let filter: FilterNode = .and(
        .compare("price", .greaterOrEqual, 10), .compare("price", .lessOrEqual, 500),
        .or(.compare("inStock", .equal, true), .compare("title", .like, .string(likeText))))
    let scenarios: [(String, SearchRequest, String)] = [
        (
            "one module (10k)", SearchRequest(moduleIds: ["m03"], searchValues: filter, pagination: .init(page: 1, limit: 50)),
            "module = 'm03' AND "
        ),
        ("all modules (100k)", SearchRequest(searchValues: filter, pagination: .init(page: 1, limit: 50)), ""),
    ]
    for (label, request, moduleSQL) in scenarios {
        var total = 0
        var times: [Double] = []
        var cpuTimes: [Double] = []
        for _ in 0..<options.runs {
            let cpuStart = threadCPUms()
            times.append(try timeIt { total = try queue.read { try ContentTables.search(request, in: $0) }.total })
            cpuTimes.append(threadCPUms() - cpuStart)
        }
        times.sort()
        cpuTimes.sort()
        // The same predicate by json_extract over every row of the plain table, then the same
        // page (createdAt desc, id): total and page count, checked against the search's total.
        let naivePredicate = """
            \(moduleSQL)json_extract(body, '$.deletedAt') IS NULL AND json_extract(body, '$.values.price') >= 10 \
            AND json_extract(body, '$.values.price') <= 500 AND (json_extract(body, '$.values.inStock') = 1 \
            OR lower(json_extract(body, '$.values.title')) LIKE '%\(likeText)%')
            """
        let naiveSQL = """
            SELECT (SELECT count(*) FROM instance WHERE \(naivePredicate)), (SELECT count(*) FROM (SELECT id FROM instance \
            WHERE \(naivePredicate) ORDER BY json_extract(body, '$.createdAt') DESC, id LIMIT 50));
            """
        let naive = try sqliteCLITimes(path: naivePath, sql: naiveSQL, runs: 9)
        guard !naive.times.isEmpty else { throw BenchError("the sqlite3 CLI reported no timings") }
        guard naive.result == "\(total)|\(min(total, 50))" else {
            throw BenchError("the naive scan found \(naive.result), the search \(total)")
        }
        // For reference, a stricter floor: json_extract over the store's own body table, reached
        // through its module index (so one module reads only its 10k bodies).
        let joinedPredicate =
            naivePredicate
            .replacingOccurrences(of: "module = ", with: "i.module = ")
            .replacingOccurrences(of: "json_extract(body, '$.deletedAt') IS NULL", with: "i.deleted_at IS NULL")
            .replacingOccurrences(of: "json_extract(body, '$.values.", with: "json_extract(b.values_json, '$.")
        let joinedSQL = """
            SELECT (SELECT count(*) FROM content_instance i JOIN content_body b ON b.pk = i.pk WHERE \(joinedPredicate)), \
            (SELECT count(*) FROM (SELECT i.id FROM content_instance i JOIN content_body b ON b.pk = i.pk \
            WHERE \(joinedPredicate) ORDER BY i.created_at DESC, i.id LIMIT 50));
            """
        let joined = try sqliteCLITimes(path: path, sql: joinedSQL, runs: 9)
        guard joined.result == naive.result else { throw BenchError("the indexed scan found \(joined.result)") }
        let joinedCPUP50 = percentile(joined.times.map(\.cpu).sorted(), 0.5)
        let p50 = percentile(times, 0.5), naiveP50 = percentile(naive.times.map(\.real).sorted(), 0.5)
        let cpuP50 = percentile(cpuTimes, 0.5), naiveCPUP50 = percentile(naive.times.map(\.cpu).sorted(), 0.5)
        func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
        print(
            """
            search \(label): total \(total), page of 50, \(options.runs) runs
              wall: p50 \(ms(p50)), p99 \(ms(percentile(times, 0.99))); naive json_extract scan (sqlite3 CLI, 9 runs) \
            p50 \(ms(naiveP50)); speed-up \(String(format: "%.1f", naiveP50 / p50))×
              cpu:  p50 \(ms(cpuP50)), p99 \(ms(percentile(cpuTimes, 0.99))); naive p50 \(ms(naiveCPUP50)); \
            speed-up \(String(format: "%.1f", naiveCPUP50 / cpuP50))×
              json_extract over the store's tables via the module index: cpu p50 \(ms(joinedCPUP50)); \
            speed-up \(String(format: "%.1f", joinedCPUP50 / cpuP50))×
            """)
    }
    if options.breakdown {
        // Each part of the filter as its own search over all modules: where the time goes.
        let parts: [(String, FilterNode?)] = [
            ("no filter", nil),
            ("price >= 10 and price <= 500", .and(.compare("price", .greaterOrEqual, 10), .compare("price", .lessOrEqual, 500))),
            ("inStock = true", .compare("inStock", .equal, true)),
            ("title like ab (2 characters: scan)", .compare("title", .like, "ab")),
            ("title like \(likeText) (trigram index)", .compare("title", .like, .string(likeText))),
            ("summary like \(likeText) (long text: scan)", .compare("summary", .like, .string(likeText))),
            ("category = delta", .compare("category", .equal, "delta")),
            (
                "category = delta and title like ab (5% candidates: scans)",
                .and(.compare("category", .equal, "delta"), .compare("title", .like, "ab"))
            ),
            (
                "rating = 4.9 and title like ab (2% candidates: probes)",
                .and(.compare("rating", .equal, 4.9), .compare("title", .like, "ab"))
            ),
            (
                "or(inStock = true, title like \(likeText))",
                .or(.compare("inStock", .equal, true), .compare("title", .like, .string(likeText)))
            ),
        ]
        for (label, filter) in parts {
            var figures: [String] = []
            for modules in [nil, ["m03"]] {
                let request = SearchRequest(moduleIds: modules, searchValues: filter, pagination: .init(page: 1, limit: 50))
                var cpuTimes: [Double] = []
                for _ in 0..<max(10, options.runs / 2) {
                    let start = threadCPUms()
                    _ = try queue.read { try ContentTables.search(request, in: $0) }
                    cpuTimes.append(threadCPUms() - start)
                }
                figures.append(String(format: "%.2f", percentile(cpuTimes.sorted(), 0.5)))
            }
            print("  part \(label): cpu p50 \(figures[0]) ms all modules, \(figures[1]) ms one module")
        }
    }
    // Sync-style rewrite of existing instances (new titles), rolled back to keep the database.
    let rewrites = makeInstances(count: min(10_000, options.count)).map { instance in
        var changed = instance
        changed.values["title"] = .string("rewritten " + (instance.values["title"]?.stringValue ?? ""))
        return changed
    }
    let rewriteCPUStart = threadCPUms()
    let rewriteMs = try timeIt {
        try queue.inTransaction { db in
            try ContentTables.upsert(contentsOf: rewrites, in: db)
            return .rollback
        }
    }
    print(
        """
        re-upsert of \(rewrites.count) existing instances: \(String(format: "%.2f", rewriteMs / 1000)) s wall, \
        \(String(format: "%.2f", (threadCPUms() - rewriteCPUStart) / 1000)) s cpu
        """)
    if options.keep { print("database kept at \(path)") }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("bench-content-store: \(error)\n".utf8))
    exit(1)
}
