import HaloContentStore

/// What the server says about each field type (`FieldType` is HaloContentStore's, the one list).
extension FieldType {
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
