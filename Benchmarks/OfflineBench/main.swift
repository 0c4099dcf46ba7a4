// bench-offline: drives HaloServices' offline cache against a running halo-server, for
// Benchmarks/offline/run.sh and for the kill -9 test (a sync in a child process).
//
//   bench-offline sync   --server URL --client-id ID --client-secret S --module M --cache FILE [--progress]
//   bench-offline edit   --server URL --client-id ID --client-secret S --module M --count N
//   bench-offline search --cache FILE --module M [--iterations N]
import Foundation
import HaloServices

struct Arguments {
    var values: [String: String] = [:]
    var flags: Set<String> = []

    init(_ list: ArraySlice<String>) {
        var iterator = list.makeIterator()
        while let item = iterator.next() {
            guard item.hasPrefix("--") else { continue }
            let name = String(item.dropFirst(2))
            if name == "progress" { flags.insert(name) } else { values[name] = iterator.next() }
        }
    }

    func required(_ name: String) throws -> String {
        guard let value = values[name] else { throw BenchError("missing --\(name)") }
        return value
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// VmRSS / VmHWM of this process in MB (Linux /proc).
/// User + system CPU seconds of this process so far (the machine is shared: wall time alone
/// says little about our own cost).
func cpuSeconds() -> Double {
    var usage = rusage()
    guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func memoryMB(_ key: String) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
        let kb = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return kb / 1024
    }
    return 0
}

/// An SDK core for `--server`, authenticated as the `--client-id` / `--client-secret` app.
func core(_ arguments: Arguments) throws -> CoreManager {
    var configuration = HaloConfiguration()
    configuration.appCredentials = Credentials(
        clientId: try arguments.required("client-id"), clientSecret: try arguments.required("client-secret"))
    configuration.environment = .custom(try serverURL(arguments).absoluteString)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-offline-\(UUID().uuidString)")
    configuration.dataDirectory = folder.appendingPathComponent("data")
    configuration.cacheDirectory = folder.appendingPathComponent("cache")
    return CoreManager(configuration: configuration)
}

func serverURL(_ arguments: Arguments) throws -> URL {
    guard let url = URL(string: try arguments.required("server")) else { throw BenchError("bad --server") }
    return url
}

/// The server benchmark's nested filter: price in [10, 500] and (inStock or title like "abi").
/// `like` takes 3+ characters (HALO's documented minimum), which the trigram index serves.
func nestedFilterBody(module: String) -> JSONValue {
    func f(_ op: String, _ property: String, _ value: JSONValue, _ type: String) -> JSONValue {
        ["operation": .string(op), "property": .string(property), "value": value, "type": .string(type)]
    }
    return [
        "moduleIds": [.string(module)],
        "searchValues": [
            "condition": "and",
            "operands": [
                f(">=", "price", 10, "number"), f("<=", "price", 500, "number"),
                ["condition": "or", "operands": [f("=", "inStock", true, "string"), f("like", "title", "abi", "string")]],
            ],
        ],
        "pagination": ["page": 1, "limit": 50],
    ]
}

func run() async throws {
    let arguments = Arguments(CommandLine.arguments.dropFirst(2))
    switch CommandLine.arguments.dropFirst().first ?? "" {
    case "sync":
        let cache = try HaloCache(file: URL(fileURLWithPath: try arguments.required("cache")))
        let sdk = try core(arguments)
        let engine = SyncEngine(cache: cache, core: sdk)
        // The token is fetched before the clock starts, as an app holds it when it syncs: the
        // figures are the sync's own (the token costs the server a PBKDF2 check, ≈ 45 ms here).
        _ = try await sdk.perform(APIRequest(.get, "api/generalcontent/module"))
        let showProgress = arguments.flags.contains("progress")
        let baseline = memoryMB("VmRSS")
        let start = Date()
        let cpuStart = cpuSeconds()
        let entries = try await engine.sync(SyncQuery(moduleId: try arguments.required("module"))) { progress in
            if showProgress {
                // Unbuffered: the kill -9 test reads these lines while the sync runs.
                FileHandle.standardOutput.write(Data("progress \(progress.itemsDone) \(progress.totalItems ?? -1)\n".utf8))
            }
        }
        let seconds = Date().timeIntervalSince(start)
        let cpu = cpuSeconds() - cpuStart
        let items = entries.reduce(0) { $0 + $1.creations + $1.updates + $1.deletions }
        print(
            String(
                format: "sync_seconds=%.3f cpu_seconds=%.3f items=%d requests=%d peak_rss_growth_mb=%.1f peak_rss_mb=%.1f",
                seconds, cpu, items, entries.count, memoryMB("VmHWM") - baseline, memoryMB("VmHWM")))
    case "edit":
        let core = try core(arguments)
        let count = Int(try arguments.required("count")) ?? 1000
        let search = APIRequest(
            .post, "api/generalcontent/instance/search",
            body: .json(
                [
                    "moduleIds": [.string(try arguments.required("module"))], "pagination": ["page": 1, "limit": .number(Double(count))],
                    "sort": "name asc",
                ]))
        let body = try await core.perform(search).body
        let items = try JSONValue(data: body)["items"]?.arrayValue ?? []
        let updated: [JSONValue] = items.map { item in
            guard case .object(var fields) = item else { return item }
            fields["name"] = .string("edited " + (fields["name"]?.stringValue ?? ""))
            fields["updatedAt"] = nil
            return .object(fields)
        }
        _ = try await core.perform(APIRequest(.post, "api/generalcontent/instance/batch", body: .json(["updated": .array(updated)])))
        print("edited=\(updated.count)")
    case "search":
        let cache = try HaloCache(file: URL(fileURLWithPath: try arguments.required("cache")))
        let body = nestedFilterBody(module: try arguments.required("module"))
        let iterations = Int(arguments.values["iterations"] ?? "30") ?? 30
        // The first search after a first sync also writes the value rows of the fields it
        // compares (`ContentTables.writeValueRowsOnDemand`): reported on its own, with its CPU.
        let firstStart = Date()
        let firstCPU = cpuSeconds()
        var total = try cache.searchLocally(body: body).paginationInfo.totalItems
        let (first, firstCPUSeconds) = (Date().timeIntervalSince(firstStart) * 1000, cpuSeconds() - firstCPU)
        var times: [Double] = []
        for _ in 0..<iterations {
            let start = Date()
            let page = try cache.searchLocally(body: body)
            times.append(Date().timeIntervalSince(start) * 1000)
            total = page.paginationInfo.totalItems
        }
        times.sort()
        print(
            String(
                format: "search_p50_ms=%.2f search_p95_ms=%.2f total=%d first_search_ms=%.1f first_search_cpu_seconds=%.3f",
                times[times.count / 2], times[times.count * 95 / 100], total, first, firstCPUSeconds))
    default:
        throw BenchError("usage: bench-offline sync|edit|search --options (see the source header)")
    }
}

do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("bench-offline: \(error)\n".utf8))
    exit(1)
}
