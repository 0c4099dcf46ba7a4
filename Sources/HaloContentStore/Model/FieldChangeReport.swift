/// What changing or removing a field does (or would do) to the values instances hold: the
/// server's answer to a module-design change (docs/protocol.md §23.10), read by the SDK. One type
/// for both sides, so the wire shape and the sentence the command lines print have one source.
public struct FieldChangeReport: Sendable, Equatable {
    /// The field's name before the change.
    public var field: String
    /// Live instances of the module.
    public var instances = 0
    /// Those holding a (non-null) value for the field.
    public var holding = 0
    public var kept = 0
    public var converted = 0
    /// Values the new definition refuses (cleared when the change is made with "clear"), or that
    /// go with a removed field.
    public var refused = 0
    /// A few refused values.
    public var examples: [RefusedValue] = []

    public struct RefusedValue: Sendable, Equatable {
        public var instanceId: String
        public var instanceName: String
        public var value: JSONValue

        public init(instanceId: String, instanceName: String, value: JSONValue) {
            self.instanceId = instanceId
            self.instanceName = instanceName
            self.value = value
        }
    }

    public init(field: String) { self.field = field }

    public init(json: JSONValue) {
        func count(_ key: String) -> Int { json[key]?.int64Value.map { Int($0) } ?? 0 }
        field = json["field"]?.stringValue ?? ""
        instances = count("instances")
        holding = count("holding")
        kept = count("kept")
        converted = count("converted")
        refused = count("refused")
        examples = (json["examples"]?.arrayValue ?? []).map {
            RefusedValue(instanceId: $0["id"]?.stringValue ?? "", instanceName: $0["name"]?.stringValue ?? "", value: $0["value"] ?? .null)
        }
    }

    public var json: JSONValue {
        [
            "field": .string(field), "instances": .number(Double(instances)), "holding": .number(Double(holding)),
            "kept": .number(Double(kept)), "converted": .number(Double(converted)), "refused": .number(Double(refused)),
            "examples": .array(examples.map { ["id": .string($0.instanceId), "name": .string($0.instanceName), "value": $0.value] }),
        ]
    }

    /// "2 of 3 instances hold a value: 0 kept, 1 converted, 1 refused", then one line per example.
    public var summary: String {
        (["\(holding) of \(instances) instances hold a value: \(kept) kept, \(converted) converted, \(refused) refused"]
            + examples.map { "  refused: \($0.instanceName) (\($0.instanceId)): \($0.value.jsonString())" }).joined(separator: "\n")
    }
}
