/// The 21 built-in HALO field types (PROTOCOL §9.3): the one list of them. The server describes
/// and validates fields with it, the SDK's offline search reads module field types through it,
/// and the app maps it to its editors (`FieldKind`).
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

    /// The type's wire name, e.g. `Text`, `Single relation`, `Localized text`.
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

    private static let byLowercasedName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name.lowercased(), $0) })

    /// The type of a wire name, ignoring case; nil for a name HALO does not define.
    public init?(name: String) {
        guard let type = Self.byLowercasedName[name.lowercased()] else { return nil }
        self = type
    }

    /// Whether values may be long (the CMS's `isLongValue`).
    public var isLongValue: Bool {
        switch self {
        case .text, .number, .date, .time, .boolean, .color, .multipleRelation, .singleRelation: return false
        default: return true
        }
    }

    /// Choice types list their allowed values (`format.values`): the server checks values
    /// against them, Module Settings edits them.
    public var takesChoices: Bool {
        switch self {
        case .singleChoice, .multipleChoice, .singleSelectDropdown, .multipleSelectDropdown: return true
        default: return false
        }
    }

    /// Single and multiple relations: values are instance ids (`include` populates them).
    public var isRelation: Bool { self == .singleRelation || self == .multipleRelation }
}

/// A field written on a command line, `NAME:TYPE[=CHOICE,CHOICE…]` (`halo module field add`,
/// `halo-server module add --field`), e.g. `title:Text`, `"size:Single choice=S,M,L"`.
public struct FieldSpecText: Sendable, Equatable {
    public var name: String
    public var type: FieldType
    public var choices: [String]?

    public init(parsing text: String) throws(ContentStoreError) {
        guard let colon = text.firstIndex(of: ":") else { throw .invalidRequest("A field is NAME:TYPE, not '\(text)'") }
        name = String(text[..<colon])
        var typeText = String(text[text.index(after: colon)...])
        if let equals = typeText.firstIndex(of: "=") {
            choices = typeText[typeText.index(after: equals)...].split(separator: ",").map(String.init)
            typeText = String(typeText[..<equals])
        }
        guard let type = FieldType(name: typeText) else {
            throw .invalidRequest("'\(typeText)' is not a field type: \(FieldType.allCases.map(\.name).joined(separator: ", "))")
        }
        self.type = type
    }
}
