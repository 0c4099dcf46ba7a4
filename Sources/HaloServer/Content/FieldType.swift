import HaloContentStore

/// The 21 built-in HALO field types (§9.3), with the validation rules the CMS reported for them.
public enum FieldType: Int, Sendable, CaseIterable {
    case text = 1, number, website, youtube, image, date, time, boolean, color, multipleRelation
    case singleRelation, longText, object, list, localizedText, video, multipleChoice, singleChoice
    case multipleSelectDropdown, singleSelectDropdown, audio

    /// `000000000000000000000001` … `000000000000000000000021`.
    public var id: String {
        let number = String(rawValue)
        return String(repeating: "0", count: 24 - number.count) + number
    }

    public init?(id: String) {
        guard id.count == 24, let number = Int(id), let type = FieldType(rawValue: number) else { return nil }
        self = type
    }

    public var name: String {
        switch self {
        case .text: return "Text"
        case .number: return "Number"
        case .website: return "Website"
        case .youtube: return "Youtube"
        case .image: return "Image"
        case .date: return "Date"
        case .time: return "Time"
        case .boolean: return "Boolean"
        case .color: return "Color"
        case .multipleRelation: return "Multiple relation"
        case .singleRelation: return "Single relation"
        case .longText: return "Long text"
        case .object: return "Object"
        case .list: return "List"
        case .localizedText: return "Localized text"
        case .video: return "Video"
        case .multipleChoice: return "Multiple choice"
        case .singleChoice: return "Single choice"
        case .multipleSelectDropdown: return "Multiple select dropdown"
        case .singleSelectDropdown: return "Single select dropdown"
        case .audio: return "Audio"
        }
    }

    var isLongValue: Bool {
        switch self {
        case .text, .number, .date, .time, .boolean, .color, .multipleRelation, .singleRelation: return false
        default: return true
        }
    }

    /// (rule, params, error key) as in `getModulesWithMetaData.json`.
    var rules: [(String, [JSONValue], String)] {
        switch self {
        case .text: return [("custom||isString", [], "validator.8"), ("isLength", [0, 1000], "validator.10")]
        case .number: return [("custom||isNumber", [], "validator.3")]
        case .website, .image, .video, .audio: return [("matches", [], "validator.1")]
        case .youtube: return [("matches", [], "validator.2")]
        case .date, .time: return [("custom||isTimestamp", [], "validator.4")]
        case .boolean: return [("custom||isStrictBoolean", [], "validator.6")]
        case .color: return [("isHexColor", [], "validator.7")]
        case .multipleRelation: return [("custom||isRelation", [], "validator.9")]
        case .singleRelation, .longText: return [("custom||isString", [], "validator.8")]
        case .object: return [("custom||isJSONObject", [], "validator.11")]
        case .list: return [("custom||isJSONArray", [], "validator.12")]
        case .localizedText:
            return [
                ("custom||isJSONObject", [], "validator.11"), ("custom||hasAllKeyLanguage", [], "validator.13"),
                ("custom||allObjectValuesAreStringValidator", [], "validator.14"),
            ]
        case .multipleChoice, .multipleSelectDropdown: return [("custom||multipleChoiceValidator", [], "validator.15")]
        case .singleChoice, .singleSelectDropdown: return [("custom||singleChoiceValidator", [], "validator.16")]
        }
    }

    /// The `fieldType` object of a field (§9.3).
    var json: JSONValue {
        [
            "id": .string(id), "name": .string(name),
            "rules": .array(rules.map { ["rule": .string($0.0), "params": .array($0.1), "error": .string($0.2)] }),
            "isLongValue": .bool(isLongValue), "createdAt": 1_479_220_924_795, "updatedAt": 1_479_220_924_795,
            "deletedAt": nil,
        ]
    }
}
