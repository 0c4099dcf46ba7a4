import Foundation
import PropertyBased
import Testing

@testable import HaloServices

/// Random filter trees survive every form the app and the wire use: tree → infix text → tree,
/// tree → wire JSON → tree, and text → tree → the same text. Trees are decoded from a list of
/// random numbers, so a failing tree shrinks with its list to a small one.
@Suite struct SearchFilterPropertyTests {
    static let trees = Gen.uint64(in: 0...UInt64.max).array(of: 0...80).map { RandomFilterTree.decode($0) }

    @Test func textRoundTripsExactly() async {
        await propertyCheck(count: 500, input: Self.trees) { tree in
            let text = tree.expression
            let parsed = try? SearchFilter.parse(expression: text)
            #expect(parsed == tree, "\(text)")
            #expect(parsed?.expression == text)
        }
    }

    /// Values and metadata in one expression (`meta.` properties), as the filter builder's text
    /// form and `halo search --filter` write them.
    static let filterPairs = Gen.uint64(in: 0...UInt64.max).array(of: 1...160).map { numbers -> SearchFilters in
        let half = numbers.count / 2
        let values = RandomFilterTree.decode(Array(numbers[1..<max(1, half)]))
        let metadata = RandomFilterTree.decode(Array(numbers[max(1, half)...]))
        // A part without any condition (only empty groups) reads back joined to the other part, or
        // alone as values (documented): not generated.
        func hasConditions(_ tree: SearchFilter) -> Bool { tree.wireJSON.jsonString().contains("\"operation\"") }
        let hasMetadata = numbers[0] % 3 != 0 && hasConditions(metadata)
        let hasValues = numbers[0] % 3 != 1 && (hasConditions(values) || !hasMetadata)
        return SearchFilters(values: hasValues ? values : nil, metadata: hasMetadata ? metadata : nil)
    }

    @Test func valuesAndMetadataTextRoundTripsExactly() async {
        await propertyCheck(count: 500, input: Self.filterPairs) { filters in
            let text = filters.expression
            let parsed = try? SearchFilters.parse(expression: text)
            #expect(parsed == filters, "\(text)")
            #expect(parsed?.expression == text)
            // The one tree the filter builder edits gives the same filters back.
            if let combined = filters.combined {
                #expect((try? SearchFilters(combined: combined.tree, metadataComparisons: combined.metadataComparisons)) == filters)
            } else {
                #expect(filters.isEmpty)
            }
        }
    }

    @Test func wireJSONRoundTripsExactly() async {
        await propertyCheck(count: 500, input: Self.trees) { tree in
            let wire = tree.wireJSON
            #expect((try? SearchFilter(wire: wire)) == tree, "\(wire.jsonString())")
            // Through bytes, as it travels.
            let bytes = wire.data(sortedKeys: true)
            #expect((try? SearchFilter(wire: JSONValue(data: bytes))) == tree)
        }
    }
}

/// Builds a filter tree from random numbers: each decision takes the next number, and a list
/// that runs out decides "the simplest" (a comparison, the first name, a null value).
struct RandomFilterTree {
    private var numbers: [UInt64]
    private var cursor = 0

    static func decode(_ numbers: [UInt64]) -> SearchFilter {
        var decoder = RandomFilterTree(numbers: numbers)
        return decoder.node(depth: 0)
    }

    private mutating func pick(_ count: Int) -> Int {
        defer { cursor += 1 }
        return cursor < numbers.count ? Int(numbers[cursor] % UInt64(count)) : 0
    }

    private mutating func pick<T>(_ options: [T]) -> T { options[pick(options.count)] }

    /// Names that need quoting, keywords, the metadata prefix, unicode and the empty name included.
    static let properties = [
        "title", "price", "Artwork ID", "and", "as", "not", "meta.createdAt", "", "naïve", #"say "hi""#, "a-b:c", "_x1", "1st",
    ]
    static let strings = ["", "abc", #"say "hi""#, #"back\slash"#, "new\nline", "ünï ✓", "true", "null", "123", "as", "@1"]
    static let numbers: [Double] = [0, -1, 1.5, 1e21, 1_714_557_600_000, 3, -2.5e-7, 9_007_199_254_740_992]
    static let types = ["string", "number", "date", "null", "boolean", "custom type"]

    private mutating func node(depth: Int) -> SearchFilter {
        if depth < 4 && pick(3) == 1 {
            let condition: SearchFilterCondition = pick(2) == 0 ? .and : .or
            let count = pick(4)
            return .group(condition, (0..<count).map { _ in node(depth: depth + 1) })
        }
        let operation = pick(SearchFilterOperation.allCases)
        let property = pick(Self.properties)
        let value = self.value(depth: 0)
        // Mostly the type the seed functions infer, sometimes the date type or another one.
        let type: String
        switch pick(4) {
        case 0, 1: type = SearchFilter.inferredType(of: value)
        case 2: type = "date"
        default: type = pick(Self.types)
        }
        return .comparison(operation: operation, property: property, value: value, type: type)
    }

    private mutating func value(depth: Int) -> JSONValue {
        switch pick(depth == 0 ? 7 : 5) {
        case 0: return .null
        case 1: return .bool(pick(2) == 1)
        case 2: return .number(pick(Self.numbers))
        case 3: return .string(pick(Self.strings))
        case 4: return .object(["en": value(depth: depth + 1), pick(Self.strings): .number(pick(Self.numbers))])
        default: return .array((0..<pick(4)).map { _ in value(depth: depth + 1) })
        }
    }
}
