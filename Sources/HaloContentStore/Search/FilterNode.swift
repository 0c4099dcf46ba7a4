/// A node of a HALO search filter tree (§11.2), used by both `searchValues` and `metaSearch`.
///
/// Decoding keeps whatever the client sent (even an unknown operation) so that `validate()` can
/// name the exact problem; search always validates before it runs a tree.
public indirect enum FilterNode: Sendable, Hashable {
    /// `{"condition": "and"|"or", "operands": [...]}`. Operand order carries no meaning.
    case condition(FilterCondition, [FilterNode])
    /// `{"operation": "=", "property": "Title", "value": "Hello", "type": "string"}`.
    case comparison(FilterComparison)
}

/// How the operands of a condition node combine.
public enum FilterCondition: Sendable, Hashable {
    case and
    case or
    /// Anything else the client sent; `validate()` rejects it.
    case unrecognized(String)

    public init(wireName: String) {
        switch wireName {
        case "and": self = .and
        case "or": self = .or
        default: self = .unrecognized(wireName)
        }
    }

    public var wireName: String {
        switch self {
        case .and: return "and"
        case .or: return "or"
        case .unrecognized(let name): return name
        }
    }
}

/// The comparison operators of §11.2.
public enum FilterOperation: Sendable, Hashable, CaseIterable {
    case equal, notEqual, greater, less, greaterOrEqual, lessOrEqual, `in`, notIn, like
    /// Anything else the client sent; `validate()` rejects it.
    case unrecognized(String)

    public static let allCases: [FilterOperation] = [
        .equal, .notEqual, .greater, .less, .greaterOrEqual, .lessOrEqual, .in, .notIn, .like,
    ]

    public init(wireName: String) {
        self = Self.allCases.first { $0.wireName == wireName } ?? .unrecognized(wireName)
    }

    public var wireName: String {
        switch self {
        case .equal: return "="
        case .notEqual: return "!="
        case .greater: return ">"
        case .less: return "<"
        case .greaterOrEqual: return ">="
        case .lessOrEqual: return "<="
        case .in: return "in"
        case .notIn: return "!in"
        case .like: return "like"
        case .unrecognized(let name): return name
        }
    }

    /// `>`, `<`, `>=`, `<=`: the operators that order values.
    public var isRange: Bool {
        switch self {
        case .greater, .less, .greaterOrEqual, .lessOrEqual: return true
        default: return false
        }
    }
}

/// A leaf of the filter tree.
public struct FilterComparison: Sendable, Hashable {
    public var operation: FilterOperation
    /// A field name (`searchValues`) or a metadata key (`metaSearch`); "" when the client sent none.
    public var property: String
    public var value: JSONValue
    /// "string", "number", "date", "null" or anything a client chose; only "date" changes the
    /// comparison (the value must then be ms). Everything else is inferred from `value` (§21).
    public var type: String?

    public init(operation: FilterOperation, property: String, value: JSONValue, type: String? = nil) {
        self.operation = operation
        self.property = property
        self.value = value
        self.type = type
    }
}

// MARK: - Convenience builders (tests, the app's filter builder)

extension FilterNode {
    public static func and(_ operands: FilterNode...) -> FilterNode { .condition(.and, operands) }
    public static func or(_ operands: FilterNode...) -> FilterNode { .condition(.or, operands) }
    public static func compare(
        _ property: String, _ operation: FilterOperation, _ value: JSONValue, type: String? = nil
    ) -> FilterNode {
        .comparison(FilterComparison(operation: operation, property: property, value: value, type: type))
    }
}

// MARK: - Validation

extension FilterNode {
    /// The deepest nesting a filter may have; deeper trees are rejected before any SQL is built.
    public static let defaultMaxDepth = 16

    /// Checks the whole tree and throws `ContentStoreError.invalidFilter` naming the first problem.
    public func validate(maxDepth: Int = FilterNode.defaultMaxDepth) throws {
        try validate(depth: 1, maxDepth: maxDepth)
    }

    private func validate(depth: Int, maxDepth: Int) throws {
        guard depth <= maxDepth else {
            throw ContentStoreError.invalidFilter("the filter is nested deeper than \(maxDepth) levels")
        }
        switch self {
        case .condition(let condition, let operands):
            if case .unrecognized(let name) = condition {
                throw ContentStoreError.invalidFilter("unknown condition \"\(name)\" (expected \"and\" or \"or\")")
            }
            guard !operands.isEmpty else {
                throw ContentStoreError.invalidFilter("the \"\(condition.wireName)\" condition has no operands")
            }
            for operand in operands { try operand.validate(depth: depth + 1, maxDepth: maxDepth) }
        case .comparison(let comparison):
            try comparison.validate()
        }
    }
}

extension FilterComparison {
    /// Throws `ContentStoreError.invalidFilter` when this comparison cannot be evaluated.
    public func validate() throws {
        let op = operation.wireName
        if case .unrecognized(let name) = operation {
            let known = FilterOperation.allCases.map(\.wireName).joined(separator: " ")
            let subject = property.isEmpty ? "" : " on \"\(property)\""
            throw ContentStoreError.invalidFilter("unknown operation \"\(name)\"\(subject) (expected one of: \(known))")
        }
        guard !property.isEmpty else {
            throw ContentStoreError.invalidFilter("the \"\(op)\" comparison has no property")
        }
        switch operation {
        case .in, .notIn:
            guard case .array = value else {
                throw ContentStoreError.invalidFilter("\"\(op)\" on \"\(property)\" needs an array value")
            }
        case .like:
            guard case .string = value else {
                throw ContentStoreError.invalidFilter("\"like\" on \"\(property)\" needs a string value")
            }
        case .greater, .less, .greaterOrEqual, .lessOrEqual:
            if case .array = value {
                throw ContentStoreError.invalidFilter("\"\(op)\" on \"\(property)\" cannot compare with an array")
            }
            if case .object = value {
                throw ContentStoreError.invalidFilter("\"\(op)\" on \"\(property)\" cannot compare with an object")
            }
        case .equal, .notEqual:
            if case .object = value {
                throw ContentStoreError.invalidFilter("\"\(op)\" on \"\(property)\" cannot compare with an object")
            }
        case .unrecognized:
            break
        }
        if case .array(let elements) = value, elements.contains(where: { $0.arrayValue != nil || $0.objectValue != nil }) {
            throw ContentStoreError.invalidFilter("\"\(op)\" on \"\(property)\" has a nested array or object in its value list")
        }
        if type == "date" {
            let scalars: [JSONValue] = value.arrayValue ?? [value]
            for scalar in scalars where !scalar.isNull && scalar.doubleValue == nil {
                throw ContentStoreError.invalidFilter(
                    "\"\(property)\" has type \"date\" but its value \(scalar.jsonString()) is not a number of milliseconds")
            }
        }
    }
}

// MARK: - Wire coding (§11.2)

extension FilterNode: Codable {
    private enum CodingKeys: String, CodingKey { case condition, operands, operation, property, value, type }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if c.contains(.condition) || c.contains(.operands) {
            let name = try c.decodeIfPresent(String.self, forKey: .condition) ?? ""
            let operands = try c.decodeIfPresent([FilterNode].self, forKey: .operands) ?? []
            self = .condition(FilterCondition(wireName: name), operands)
        } else {
            let operation = try c.decodeIfPresent(String.self, forKey: .operation) ?? ""
            let property = try c.decodeIfPresent(String.self, forKey: .property) ?? ""
            let value = try c.decodeIfPresent(JSONValue.self, forKey: .value) ?? .null
            let type = try c.decodeIfPresent(String.self, forKey: .type)
            self = .comparison(
                FilterComparison(
                    operation: FilterOperation(wireName: operation), property: property, value: value, type: type))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .condition(let condition, let operands):
            try c.encode(condition.wireName, forKey: .condition)
            try c.encode(operands, forKey: .operands)
        case .comparison(let comparison):
            try c.encode(comparison.operation.wireName, forKey: .operation)
            try c.encode(comparison.property, forKey: .property)
            try c.encode(comparison.value, forKey: .value)
            try c.encodeIfPresent(comparison.type, forKey: .type)
        }
    }
}
