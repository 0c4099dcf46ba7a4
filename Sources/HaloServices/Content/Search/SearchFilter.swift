import Foundation

/// A condition tree over instance values (`searchFilter`) or metadata (`metaFilter`), encoded as
/// PROTOCOL §11.2:
/// `{"condition": "and"|"or", "operands": [...]}` or
/// `{"operation": "=", "property": "Title", "value": "Hello", "type": "string"}`.
///
/// Build one with the seed's free functions (`eq`, `neq`, `gt`, `lt`, `gte`, `lte`, `valueIn`,
/// `valueNotIn`, `like`, `and`, `or`), parse one from wire JSON with `init(wire:)`, or from an
/// infix expression with `SearchFilter.parse(expression:)`.
public indirect enum SearchFilter: Hashable, Sendable, HaloWireDecodable, HaloWireEncodable {
    /// `and` / `or` over sub-filters, in the order given.
    case group(SearchFilterCondition, [SearchFilter])
    /// One comparison of a property with a value; `type` is the wire type hint.
    case comparison(operation: SearchFilterOperation, property: String, value: JSONValue, type: String)

    /// The §11.2 JSON of the filter.
    public var body: JSONValue { wireJSON }

    public var wireJSON: JSONValue {
        switch self {
        case .group(let condition, let operands):
            return ["condition": .string(condition.rawValue), "operands": .array(operands.map(\.wireJSON))]
        case .comparison(let operation, let property, let value, let type):
            return [
                "operation": .string(operation.rawValue), "property": .string(property), "value": value,
                "type": .string(type),
            ]
        }
    }

    /// Reads a filter tree from wire JSON; an unknown operation or condition, or a node that is
    /// neither kind, is a `HaloError.invalidInput` naming the problem.
    public init(wire: JSONValue) throws {
        try self.init(wire: wire, depth: 0)
    }

    /// Trees deeper than this are refused, so hostile input cannot exhaust the stack.
    static let maxDepth = 100

    private init(wire: JSONValue, depth: Int) throws {
        guard depth < Self.maxDepth else {
            throw HaloError.invalidInput(message: "The search filter nests deeper than \(Self.maxDepth) levels.")
        }
        guard case .object(let fields) = wire else {
            throw HaloError.invalidInput(message: "A search filter must be a JSON object, got \(wire.wireKindName).")
        }
        if let condition = fields["condition"] {
            guard let raw = condition.stringValue, let parsed = SearchFilterCondition(rawValue: raw.lowercased()) else {
                throw HaloError.invalidInput(message: "Unknown filter condition \(condition.jsonString()); expected \"and\" or \"or\".")
            }
            guard case .array(let operands)? = fields["operands"] else {
                throw HaloError.invalidInput(message: "The \"\(parsed.rawValue)\" filter has no \"operands\" array.")
            }
            self = .group(parsed, try operands.map { try SearchFilter(wire: $0, depth: depth + 1) })
        } else if let operation = fields["operation"] {
            guard let raw = operation.stringValue, let parsed = SearchFilterOperation(rawValue: raw) else {
                throw HaloError.invalidInput(message: "Unknown filter operation \(operation.jsonString()).")
            }
            guard let property = fields["property"]?.stringValue else {
                throw HaloError.invalidInput(message: "The \"\(raw)\" filter has no string \"property\".")
            }
            let value = fields["value"] ?? .null
            let type = fields["type"]?.stringValue ?? SearchFilter.inferredType(of: value)
            self = .comparison(operation: parsed, property: property, value: value, type: type)
        } else {
            throw HaloError.invalidInput(message: "A search filter needs \"condition\" or \"operation\".")
        }
    }

    /// The wire type the iOS SDK chose for a value (§11.2 table): null → `null`, string and
    /// boolean → `string`, number → `number`, array → its first element's type (`string` when
    /// empty, `null` for objects).
    public static func inferredType(of value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .string, .bool: return "string"
        case .number: return "number"
        case .object: return "null"
        case .array(let items):
            guard let first = items.first else { return "string" }
            return inferredType(of: first)
        }
    }

    /// A comparison built from a seed-style `Any?` value; a `Date` (or an array starting with
    /// one) becomes milliseconds with type `date` unless `type` overrides it.
    static func make(_ operation: SearchFilterOperation, _ property: String, _ value: Any?, _ type: String?) -> SearchFilter {
        let json = AnyJSONConversion.json(from: value)
        let isDate = value is Date || (value as? [Any])?.first is Date
        let wireType = type ?? (isDate ? "date" : inferredType(of: json))
        return .comparison(operation: operation, property: property, value: json, type: wireType)
    }
}

/// How a group combines its operands.
public enum SearchFilterCondition: String, Hashable, Sendable, CaseIterable {
    case and, or
}

/// The comparison operators of §11.2.
public enum SearchFilterOperation: String, Hashable, Sendable, CaseIterable {
    case equal = "="
    case notEqual = "!="
    case greaterThan = ">"
    case lessThan = "<"
    case greaterThanOrEqual = ">="
    case lessThanOrEqual = "<="
    case valueIn = "in"
    case valueNotIn = "!in"
    case like = "like"
}

// MARK: - The seed's filter functions

/// `property = value`.
public func eq(property: String, value: Any?, type: String? = nil) -> SearchFilter {
    .make(.equal, property, value, type)
}

/// `property != value`.
public func neq(property: String, value: Any?, type: String? = nil) -> SearchFilter {
    .make(.notEqual, property, value, type)
}

/// `property > value`.
public func gt(property: String, value: Any?, type: String? = nil) -> SearchFilter {
    .make(.greaterThan, property, value, type)
}

/// `property < value`.
public func lt(property: String, value: Any?, type: String? = nil) -> SearchFilter {
    .make(.lessThan, property, value, type)
}

/// `property >= value`.
public func gte(property: String, value: Any?, type: String? = nil) -> SearchFilter {
    .make(.greaterThanOrEqual, property, value, type)
}

/// `property <= value`.
public func lte(property: String, value: Any?, type: String? = nil) -> SearchFilter {
    .make(.lessThanOrEqual, property, value, type)
}

/// `property in [values]`.
public func valueIn(property: String, value: Any?, type: String? = nil) -> SearchFilter {
    .make(.valueIn, property, value, type)
}

/// `property !in [values]`.
public func valueNotIn(property: String, value: Any?, type: String? = nil) -> SearchFilter {
    .make(.valueNotIn, property, value, type)
}

/// `property like value` (a text match; servers treat it as a case-insensitive substring).
public func like(property: String, value: String) -> SearchFilter {
    .comparison(operation: .like, property: property, value: .string(value), type: "string")
}

/// All of the filters.
public func and(_ elements: SearchFilter...) -> SearchFilter { .group(.and, elements) }

/// Any of the filters.
public func or(_ elements: SearchFilter...) -> SearchFilter { .group(.or, elements) }
