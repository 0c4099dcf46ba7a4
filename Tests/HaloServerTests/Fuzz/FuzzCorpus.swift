import Foundation

/// One failing input the fuzzer found: kept in Tests/FuzzCorpus/ and replayed first on every run.
struct FuzzCorpusEntry: Codable, Sendable {
    /// route + kind + signature: one entry per distinct problem.
    var key: String
    /// crash, 500, non-envelope, hang, or wrong-status (a refusal answered otherwise).
    var kind: String
    var route: String
    var method: String
    var target: String
    var headers: [[String]]
    /// The body, exact (base64). `bodyText` repeats it for humans when it is short UTF-8 text.
    var bodyBase64: String?
    var bodyText: String?
    var note: String
    /// What the server did (status, body or the fatal error it printed), when found.
    var observed: String
    var seed: String
    /// The status the server must answer (`FuzzRequest.expected`), for inputs built to be refused.
    var expected: Int?

    var request: FuzzRequest {
        FuzzRequest(
            method: method, target: target, headers: headers, body: bodyBase64.flatMap { Data(base64Encoded: $0) }, note: note,
            expected: expected)
    }
}

enum FuzzCorpus {
    /// Tests/FuzzCorpus, found from this file so any checkout works. Outside the test target's
    /// folder on purpose: SwiftPM would otherwise ask for the JSON files to be declared resources.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzCorpus", isDirectory: true)

    /// Where the request in flight is written before it is sent (survives any crash).
    static let lastRequestFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("test-artifacts/fuzz/last-request.json")

    static func load() -> [FuzzCorpusEntry] {
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        return files.filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }.compactMap { file in
            guard let data = try? Data(contentsOf: file) else { return nil }
            return try? JSONDecoder().decode(FuzzCorpusEntry.self, from: data)
        }
    }

    static func entry(for request: FuzzRequest, key: String, kind: String, observed: String, seed: String) -> FuzzCorpusEntry {
        let text = request.body.flatMap { $0.count <= 4096 ? String(data: $0, encoding: .utf8) : nil }
        return FuzzCorpusEntry(
            key: key, kind: kind, route: request.route, method: request.method, target: request.target, headers: request.headers,
            bodyBase64: request.body?.base64EncodedString(), bodyText: text, note: request.note, observed: String(observed.prefix(2000)),
            seed: seed, expected: request.expected)
    }

    /// Writes `entry` as <route>-<kind>-<hash>.json; returns the file.
    @discardableResult
    static func save(_ entry: FuzzCorpusEntry) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let slug = entry.route.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }
        let name = String(String(slug).split(separator: "-").joined(separator: "-").prefix(60)) + "-\(entry.kind)-\(hash(entry.key)).json"
        let file = directory.appendingPathComponent(name)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(entry).write(to: file)
        return file
    }

    static func writeLastRequest(_ request: FuzzRequest, sent: FuzzRequest) {
        let entry = entry(for: request, key: "in flight", kind: "in flight", observed: "sent as: \(sent.target)", seed: "")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try? FileManager.default.createDirectory(at: lastRequestFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? encoder.encode(entry).write(to: lastRequestFile)
    }

    /// FNV-1a, 64 bits, as 16 hex digits: a stable file name for a key.
    static func hash(_ text: String) -> String {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01B3
        }
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
