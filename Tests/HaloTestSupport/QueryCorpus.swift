import Foundation

/// One search of the committed query corpus (`Benchmarks/queries/corpus.txt`), as written: the
/// value filter and the metadata filter in the filter language, and the sort. The test targets
/// parse the texts with the SDK.
public struct QueryCorpusEntry: Sendable {
    public var name: String
    public var filter: String?
    public var meta: String?
    public var sort: String?
}

public enum QueryCorpus {
    public struct FormatError: Error, CustomStringConvertible {
        public let description: String
    }

    public static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Benchmarks/queries/corpus.txt")

    /// The entries in file order; a line the format does not know fails with its query's name.
    public static func load() throws -> [QueryCorpusEntry] {
        var entries: [QueryCorpusEntry] = []
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("## ") {
                entries.append(QueryCorpusEntry(name: String(text.dropFirst(3))))
                continue
            }
            guard !text.hasPrefix("#"), let colon = text.firstIndex(of: ":"), !entries.isEmpty else { continue }
            let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch text[..<colon] {
            case "filter": entries[entries.count - 1].filter = value
            case "meta": entries[entries.count - 1].meta = value
            case "sort": entries[entries.count - 1].sort = value
            default: throw FormatError(description: "\(entries[entries.count - 1].name): unknown line \(text)")
            }
        }
        return entries
    }
}
