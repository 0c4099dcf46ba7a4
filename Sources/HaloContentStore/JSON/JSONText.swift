/// A fast compact JSON writer for `JSONValue`, used on the storage hot path (bulk upserts write
/// 100,000 bodies; `JSONEncoder` is several times slower for this). Object keys are sorted so
/// the stored text is stable.
extension JSONValue {
    /// Compact JSON text with sorted keys; whole numbers without ".0".
    public var compactJSONText: String {
        var out = ""
        out.reserveCapacity(256)
        JSONValue.write(self, into: &out)
        return out
    }

    static func write(_ value: JSONValue, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n.isFinite ? canonicalText(of: n) : "null"
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                write(element, into: &out)
            }
            out += "]"
        case .object(let members):
            writeObject(members, into: &out)
        }
    }

    static func writeObject(_ members: [String: JSONValue], into out: inout String) {
        out += "{"
        for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { out += "," }
            writeString(member.key, into: &out)
            out += ":"
            write(member.value, into: &out)
        }
        out += "}"
    }

    static func writeString(_ s: String, into out: inout String) {
        // Most strings need no escaping: copy them whole.
        if !s.containsUTF8Byte(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += "\""
            out += s
            out += "\""
            return
        }
        out += "\""
        var plainStart = s.unicodeScalars.startIndex
        let scalars = s.unicodeScalars
        var index = scalars.startIndex
        while index != scalars.endIndex {
            let scalar = scalars[index]
            let escape: String?
            switch scalar {
            case "\"": escape = "\\\""
            case "\\": escape = "\\\\"
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escape = nil
            }
            if let escape {
                out.unicodeScalars.append(contentsOf: scalars[plainStart..<index])
                out += escape
                plainStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        out.unicodeScalars.append(contentsOf: scalars[plainStart..<scalars.endIndex])
        out += "\""
    }
}
