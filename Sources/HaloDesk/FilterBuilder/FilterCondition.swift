import Foundation
import HaloServices

// What the filter builder edits (issue 13): a tree of groups and conditions over a module's
// fields and its metadata. It reads and writes the SDK's `SearchFilters` (values and metadata,
// the wire trees and the text form); the builder has no copy of the search language. A condition
// read from a filter keeps its exact value and type hint until the user changes it, so opening a
// filter and applying it unchanged sends the same trees.

/// A field a condition can test: one of the module's, or a metadata field (`meta.` in the text).
struct FilterField: Hashable, Sendable {
    let name: String
    let kind: FieldKind
    let isMetadata: Bool
    /// The values a choice field offers (its `format.values`), in order.
    var choices: [String] = []

    /// The metadata a search can test (PROTOCOL §11.1), in the order the builder lists them.
    static let metadata: [FilterField] =
        [FilterField(name: "name", kind: .text, isMetadata: true)]
        + ["createdAt", "updatedAt", "publishedAt", "removedAt", "archivedAt", "deletedAt"].map {
            FilterField(name: $0, kind: .date, isMetadata: true)
        }
        + ["createdBy", "updatedBy"].map { FilterField(name: $0, kind: .text, isMetadata: true) }

    /// What a filter on a module can test: the fields the module declares (with their choices),
    /// else the ones its instances were seen to hold, then the metadata.
    static func fields(declared: [ModuleField]?, seen: [FieldDescriptor]) -> [FilterField] {
        let own: [FilterField]
        if let declared, !declared.isEmpty {
            own = declared.map { field in
                let descriptor = FieldDescriptor(declared: field)
                return FilterField(name: field.name, kind: descriptor.kind, isMetadata: false, choices: descriptor.choices)
            }
        } else {
            own = seen.map { FilterField(name: $0.name, kind: $0.kind, isMetadata: false) }
        }
        return own + metadata
    }

    /// How the builder names the field ("Updated" for `updatedAt`; a module field by its name).
    var label: String {
        guard isMetadata else { return name }
        switch name {
        case "name": return "Instance name"
        case "createdAt": return "Created"
        case "updatedAt": return "Updated"
        case "publishedAt": return "Published"
        case "removedAt": return "Expires"
        case "archivedAt": return "Archived"
        case "deletedAt": return "Deleted"
        case "createdBy": return "Created by"
        case "updatedBy": return "Updated by"
        default: return name
        }
    }
}

/// The operators the builder offers; "is empty" and "is not empty" are `= null` and `!= null`.
enum FilterOperator: CaseIterable, Sendable {
    case equal, notEqual, greater, greaterOrEqual, less, lessOrEqual, oneOf, noneOf, contains, isEmpty, isNotEmpty

    var label: String {
        switch self {
        case .equal: "is"
        case .notEqual: "is not"
        case .greater: "is greater than"
        case .greaterOrEqual: "is at least"
        case .less: "is less than"
        case .lessOrEqual: "is at most"
        case .oneOf: "is one of"
        case .noneOf: "is none of"
        case .contains: "contains"
        case .isEmpty: "is empty"
        case .isNotEmpty: "is not empty"
        }
    }

    /// Operators that make sense for a kind of field, the most used first.
    static func offered(for kind: FieldKind) -> [FilterOperator] {
        switch kind {
        case .number, .date, .day, .time:
            [.equal, .notEqual, .greater, .greaterOrEqual, .less, .lessOrEqual, .oneOf, .noneOf, .isEmpty, .isNotEmpty]
        case .boolean: [.equal, .notEqual, .isEmpty, .isNotEmpty]
        case .text, .longText, .link, .image: [.contains, .equal, .notEqual, .oneOf, .noneOf, .isEmpty, .isNotEmpty]
        case .relation, .relations, .list: [.equal, .notEqual, .oneOf, .noneOf, .isEmpty, .isNotEmpty]
        case .object, .localized: [.contains, .isEmpty, .isNotEmpty]
        }
    }

    var takesList: Bool { self == .oneOf || self == .noneOf }
    var takesNoValue: Bool { self == .isEmpty || self == .isNotEmpty }

    var wire: SearchFilterOperation {
        switch self {
        case .equal, .isEmpty: .equal
        case .notEqual, .isNotEmpty: .notEqual
        case .greater: .greaterThan
        case .greaterOrEqual: .greaterThanOrEqual
        case .less: .lessThan
        case .lessOrEqual: .lessThanOrEqual
        case .oneOf: .valueIn
        case .noneOf: .valueNotIn
        case .contains: .like
        }
    }
}

/// What a condition compares with.
enum FilterValue: Equatable, Sendable {
    case none
    case text(String)
    case number(Double)
    /// Epoch milliseconds (sent with the type hint `date`).
    case date(Double)
    case bool(Bool)
    /// The values of "is one of" / "is none of".
    case list([FilterValue])
    /// Read from a filter and not a typed value the builder edits (an object, an unusual type
    /// hint): kept exactly as it came, and shown as text.
    case wire(JSONValue, type: String)

    /// Whether the value is one a field of `kind` takes (a list: all its items).
    func fits(_ kind: FieldKind) -> Bool {
        switch self {
        case .none, .wire: true
        case .text: ![.number, .date, .day, .time, .boolean].contains(kind)
        case .number: kind == .number || kind == .time
        case .date: kind == .date || kind == .day
        case .bool: kind == .boolean
        case .list(let items): items.allSatisfy { $0.fits(kind) && !$0.isList }
        }
    }

    private var isList: Bool { if case .list = self { true } else { false } }

    /// The wire value and type hint (the SDK's inference, dates as milliseconds with `date`).
    var wire: (value: JSONValue, type: String) {
        switch self {
        case .none: return (JSONValue.null, "null")
        case .text(let text): return (JSONValue.string(text), "string")
        case .number(let number): return (JSONValue.number(number), "number")
        case .date(let milliseconds): return (JSONValue.number(milliseconds), "date")
        case .bool(let flag): return (JSONValue.bool(flag), "string")
        case .wire(let value, let type): return (value, type)
        case .list(let items):
            let values = items.map(\.wire.value)
            let type = items.first.map { if case .date = $0 { "date" } else { SearchFilter.inferredType(of: .array(values)) } } ?? "string"
            return (.array(values), type)
        }
    }

    /// The typed value for a wire value, when the builder can edit it as such.
    init(wire value: JSONValue, type: String, kind: FieldKind) {
        switch (value, type) {
        case (.string(let text), "string"): self = .text(text)
        case (.number(let number), "date") where kind == .date || kind == .day: self = .date(number)
        case (.number(let number), "number") where kind != .date && kind != .day: self = .number(number)
        case (.bool(let flag), "string"): self = .bool(flag)
        case (.array(let items), _):
            let typed = items.map { FilterValue(wire: $0, type: type == "date" ? "date" : SearchFilter.inferredType(of: $0), kind: kind) }
            let list = FilterValue.list(typed)
            self =
                list.wire == (value, type) && !typed.contains { if case .wire = $0 { true } else { false } }
                ? list : .wire(value, type: type)
        default: self = .wire(value, type: type)
        }
    }
}

/// One field → operator → value line of the builder.
struct FilterCondition: Equatable, Sendable {
    /// nil until the user picks one; a field the module no longer has keeps its name (`isMissing`).
    var field: FilterField?
    var operation: FilterOperator?
    var value: FilterValue = .none
    /// Set when the field no longer exists in the module (a saved view, an old filter).
    var isMissing = false
    /// Why the value was just cleared (the new field or operator does not take it), for the UI.
    var clearedReason: String?
    /// What the user typed that is not a value of the field (e.g. "12,5x" for a number): the
    /// condition is not applied until it is fixed.
    var inputProblem: String?

    /// A field change keeps the operator and the value only where they still fit.
    mutating func setField(_ newField: FilterField) {
        field = newField
        isMissing = false
        let offered = FilterOperator.offered(for: newField.kind)
        if operation.map({ !offered.contains($0) }) ?? true { operation = offered.first }
        clearIfUnfit(reason: "The value was cleared: “\(newField.label)” does not take it.")
        startBooleanAtYes()
    }

    /// An operator change turns one value into a list of one and back, and clears what no longer fits.
    mutating func setOperator(_ newOperator: FilterOperator) {
        operation = newOperator
        clearedReason = nil
        switch value {
        case .none: break
        case _ where newOperator.takesNoValue: value = .none
        case .list where newOperator.takesList: break
        case _ where newOperator.takesList: value = .list([value])
        case .list(let items):
            value = items.count == 1 ? items[0] : .none
            if items.count > 1 { clearedReason = "The values were cleared: “\(newOperator.label)” takes one value." }
        default: break
        }
        clearIfUnfit(reason: "The value was cleared: “\(newOperator.label)” does not take it.")
        startBooleanAtYes()
    }

    /// A yes/no field's switch always shows a value, so the condition holds the one it shows.
    private mutating func startBooleanAtYes() {
        if field?.kind == .boolean, value == .none, let operation, !operation.takesNoValue, !operation.takesList {
            value = .bool(true)
        }
    }

    private mutating func clearIfUnfit(reason: String) {
        guard let field, value != .none else { return }
        if !value.fits(field.kind) || (operation == .contains && !isText(value)) {
            value = .none
            clearedReason = reason
        }
    }

    private func isText(_ value: FilterValue) -> Bool { if case .text = value { true } else { false } }

    /// What is wrong with the condition as it stands, in the user's words; nil when it can be applied.
    var problem: String? {
        guard let field else { return "Choose a field." }
        if isMissing { return "“\(field.name)” is not a field of this module any more." }
        guard let operation else { return "Choose how to compare." }
        if operation.takesNoValue { return nil }
        if let inputProblem { return inputProblem }
        switch value {
        case .none: return operation.takesList ? "Add at least one value." : "Enter a value."
        case .list(let items) where items.isEmpty: return "Add at least one value."
        case .text(let text) where operation == .contains && text.count < 3:
            return "Type at least 3 characters: HALO finds text by 3 or more."
        default: return nil
        }
    }

    /// The wire comparison (nil while `problem` is not nil).
    var comparison: SearchFilter? {
        guard problem == nil, let field, let operation else { return nil }
        let (value, type) = operation.takesNoValue ? (JSONValue.null, "null") : self.value.wire
        return .comparison(operation: operation.wire, property: field.name, value: value, type: type)
    }
}

/// A node of the builder's tree; `id` stays with the node through moves (list rows, focus).
struct FilterNode: Equatable, Sendable, Identifiable {
    enum Content: Equatable, Sendable {
        case condition(FilterCondition)
        case group(SearchFilterCondition, [FilterNode])
    }
    let id: Int
    var content: Content
}
