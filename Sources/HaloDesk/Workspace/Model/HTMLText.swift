import Foundation

/// The text a reader sees in a long text's HTML, for the editor's preview: tags dropped, a
/// block (paragraph, heading, list item, line break) on its own line, entities decoded. A
/// preview, not a renderer: scripts and styles are dropped whole.
enum HTMLText {
    static func plainText(of html: String) -> String {
        var text = ""
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            text += inline(rest[..<open])
            guard let close = rest[open...].firstIndex(of: ">") else { rest = rest[open...]; break }
            let tag = rest[rest.index(after: open)..<close].lowercased()
            let name = tag.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter || $0.isNumber })
            rest = rest[rest.index(after: close)...]
            if (name == "script" || name == "style") && !tag.hasPrefix("/") {
                // Skip to the element's end: its content is not text.
                if let end = rest.range(of: "</\(name)", options: .caseInsensitive) { rest = rest[end.upperBound...] }
                if let close = rest.firstIndex(of: ">") { rest = rest[rest.index(after: close)...] }
                continue
            }
            if blockElements.contains(String(name)) && !text.hasSuffix("\n") && !text.isEmpty { text += "\n" }
        }
        text += inline(rest)
        return text.split(separator: "\n").map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// Text between tags: line breaks in the source are spaces to a reader.
    private static func inline(_ source: Substring) -> String {
        decodeEntities(source).replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\t", with: " ")
    }

    private static let blockElements: Set<String> = [
        "p", "br", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "blockquote", "pre", "hr", "table",
    ]

    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "mdash": "—", "ndash": "–",
        "hellip": "…", "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“", "copy": "©",
    ]

    private static func decodeEntities(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var result = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semicolon = after.prefix(10).firstIndex(of: ";"), let decoded = decode(after[..<semicolon]) {
                result += decoded
                rest = after[after.index(after: semicolon)...]
            } else {
                result += "&"
                rest = after
            }
        }
        return result + rest
    }

    private static func decode(_ entity: Substring) -> String? {
        if entity.hasPrefix("#") {
            let number = entity.dropFirst()
            let code = number.hasPrefix("x") || number.hasPrefix("X") ? UInt32(number.dropFirst(), radix: 16) : UInt32(number)
            return code.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
        return named[String(entity)]
    }
}
