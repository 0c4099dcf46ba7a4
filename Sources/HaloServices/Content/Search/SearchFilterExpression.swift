import Foundation

/// A small infix language for search filters, used by the `halo` command and the app's filter
/// builder: `price >= 10 and (inStock = true or title like "ab")`.
///
/// Grammar (keywords are case-insensitive):
/// ```
/// expression := term ("or" term)*
/// term       := factor ("and" factor)*              -- "and" binds tighter than "or"
/// factor     := "(" expression ")" | comparison
/// comparison := property operator value
/// property   := word | quoted-string                 -- quote names with spaces: "Artwork ID"
/// operator   := "=" | "==" | "!=" | ">" | "<" | ">=" | "<=" | "in" | "!in" | "not in" | "like"
/// value      := number | quoted-string | "true" | "false" | "null" | date | word | list
/// date       := "@" (epoch-milliseconds | ISO 8601 date or date-time)   -- sent as ms, type "date"
/// list       := "[" [value ("," value)*] "]"
/// word       := letters, digits and _ . - : (starting with a letter or _)
/// ```
/// Strings are written in `"…"` or `'…'` with `\` escaping the next character. A bare word
/// value is a string (`title like ab`). Chains of the same connective flatten into one group
/// (`a and b and c` → one `and` with three operands); operand order is kept as written.
/// Value types follow the seed functions' inference (§11.2); dates (`@2024-05-01`,
/// `@2024-05-01T10:00:00Z`, `@1714557600000`) become milliseconds with type `date`.
extension SearchFilter {
    /// Parses an infix filter expression; a syntax error is a `HaloError.invalidInput` that says
    /// what was expected and at which character (1-based).
    public static func parse(expression: String) throws -> SearchFilter {
        var parser = FilterExpressionParser(tokens: try FilterExpressionLexer.tokenize(expression))
        let filter = try parser.parseExpression()
        if let extra = parser.peek {
            throw HaloError.invalidInput(message: "Unexpected \(extra.kind.display) at character \(extra.position) of the filter.")
        }
        return filter
    }
}

private struct FilterToken: Equatable {
    enum Kind: Equatable {
        case word(String)
        case string(String)
        case number(Double)
        /// A date literal, as epoch milliseconds.
        case date(Double)
        case symbol(String)  // ( ) [ ] , and the comparison operators

        var display: String {
            switch self {
            case .word(let w): return "'\(w)'"
            case .string(let s): return "\"\(s)\""
            case .number(let n): return JSONValue.number(n).jsonString()
            case .date(let ms): return "@" + JSONValue.number(ms).jsonString()
            case .symbol(let s): return "'\(s)'"
            }
        }
    }
    let kind: Kind
    /// 1-based character offset in the expression.
    let position: Int
}

private enum FilterExpressionLexer {
    static func tokenize(_ text: String) throws -> [FilterToken] {
        let chars = Array(text)
        var tokens: [FilterToken] = []
        var i = 0
        func isWordStart(_ c: Character) -> Bool { c.isLetter || c == "_" }
        func isWordPart(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" || c == "." || c == "-" || c == ":" }
        while i < chars.count {
            let c = chars[i]
            let start = i + 1
            if c.isWhitespace {
                i += 1
            } else if "()[],".contains(c) {
                tokens.append(FilterToken(kind: .symbol(String(c)), position: start))
                i += 1
            } else if c == "=" {
                i += (i + 1 < chars.count && chars[i + 1] == "=") ? 2 : 1
                tokens.append(FilterToken(kind: .symbol("="), position: start))
            } else if c == ">" || c == "<" {
                if i + 1 < chars.count && chars[i + 1] == "=" {
                    tokens.append(FilterToken(kind: .symbol("\(c)="), position: start))
                    i += 2
                } else {
                    tokens.append(FilterToken(kind: .symbol(String(c)), position: start))
                    i += 1
                }
            } else if c == "!" {
                if i + 1 < chars.count && chars[i + 1] == "=" {
                    tokens.append(FilterToken(kind: .symbol("!="), position: start))
                    i += 2
                } else if i + 2 < chars.count && chars[i + 1].lowercased() == "i" && chars[i + 2].lowercased() == "n" {
                    tokens.append(FilterToken(kind: .symbol("!in"), position: start))
                    i += 3
                } else {
                    throw HaloError.invalidInput(message: "Expected '!=' or '!in' at character \(start) of the filter.")
                }
            } else if c == "\"" || c == "'" {
                var value = ""
                var j = i + 1
                var closed = false
                while j < chars.count {
                    if chars[j] == "\\" && j + 1 < chars.count {
                        value.append(chars[j + 1])
                        j += 2
                    } else if chars[j] == c {
                        closed = true
                        j += 1
                        break
                    } else {
                        value.append(chars[j])
                        j += 1
                    }
                }
                guard closed else {
                    throw HaloError.invalidInput(message: "The string starting at character \(start) of the filter is not closed.")
                }
                tokens.append(FilterToken(kind: .string(value), position: start))
                i = j
            } else if c.isNumber || ((c == "-" || c == "+") && i + 1 < chars.count && chars[i + 1].isNumber) {
                var j = i + 1
                while j < chars.count
                    && (chars[j].isNumber || ".eE".contains(chars[j])
                        || ((chars[j] == "-" || chars[j] == "+") && "eE".contains(chars[j - 1])))
                {
                    j += 1
                }
                let literal = String(chars[i..<j])
                guard let number = Double(literal), number.isFinite else {
                    throw HaloError.invalidInput(message: "'\(literal)' at character \(start) of the filter is not a number.")
                }
                tokens.append(FilterToken(kind: .number(number), position: start))
                i = j
            } else if c == "@" {
                var j = i + 1
                while j < chars.count && (isWordPart(chars[j]) || chars[j] == "+") { j += 1 }
                let literal = String(chars[(i + 1)..<j])
                guard let ms = dateMilliseconds(literal) else {
                    throw HaloError.invalidInput(
                        message:
                            "'@\(literal)' at character \(start) of the filter is not a date (use @2024-05-01, @2024-05-01T10:00:00Z or @<epoch ms>)."
                    )
                }
                tokens.append(FilterToken(kind: .date(ms), position: start))
                i = j
            } else if isWordStart(c) {
                var j = i + 1
                while j < chars.count && isWordPart(chars[j]) { j += 1 }
                tokens.append(FilterToken(kind: .word(String(chars[i..<j])), position: start))
                i = j
            } else {
                throw HaloError.invalidInput(message: "Unexpected character '\(c)' at character \(start) of the filter.")
            }
        }
        return tokens
    }

    /// Epoch milliseconds of `1714557600000`, `2024-05-01` (UTC midnight) or an ISO 8601 date-time.
    static func dateMilliseconds(_ text: String) -> Double? {
        if !text.isEmpty, text.allSatisfy(\.isNumber), let ms = Double(text) { return ms }
        let formatter = ISO8601DateFormatter()
        var options: [ISO8601DateFormatter.Options] = [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate],
        ]
        while !options.isEmpty {
            formatter.formatOptions = options.removeFirst()
            if let date = formatter.date(from: text) { return Double(HaloTimestamp.milliseconds(from: date)) }
        }
        return nil
    }
}

private struct FilterExpressionParser {
    let tokens: [FilterToken]
    var index = 0

    init(tokens: [FilterToken]) { self.tokens = tokens }

    var peek: FilterToken? { index < tokens.count ? tokens[index] : nil }

    private func isKeyword(_ token: FilterToken?, _ keyword: String) -> Bool {
        if case .word(let w)? = token?.kind { return w.lowercased() == keyword }
        return false
    }

    private func isSymbol(_ token: FilterToken?, _ symbol: String) -> Bool {
        token?.kind == .symbol(symbol)
    }

    private func failure(expected: String) -> HaloError {
        if let token = peek {
            return .invalidInput(message: "Expected \(expected) at character \(token.position) of the filter, found \(token.kind.display).")
        }
        return .invalidInput(message: "Expected \(expected) at the end of the filter.")
    }

    mutating func parseExpression() throws -> SearchFilter {
        var operands = [try parseTerm()]
        while isKeyword(peek, "or") {
            index += 1
            operands.append(try parseTerm())
        }
        return operands.count == 1 ? operands[0] : .group(.or, operands.flatMap { $0.operands(of: .or) })
    }

    mutating func parseTerm() throws -> SearchFilter {
        var operands = [try parseFactor()]
        while isKeyword(peek, "and") {
            index += 1
            operands.append(try parseFactor())
        }
        return operands.count == 1 ? operands[0] : .group(.and, operands.flatMap { $0.operands(of: .and) })
    }

    /// Open parentheses; bounded so hostile input cannot exhaust the stack.
    private var depth = 0
    static let maxDepth = 100

    mutating func parseFactor() throws -> SearchFilter {
        if isSymbol(peek, "(") {
            guard depth < Self.maxDepth else {
                throw HaloError.invalidInput(message: "The filter nests parentheses deeper than \(Self.maxDepth).")
            }
            index += 1
            depth += 1
            defer { depth -= 1 }
            let inner = try parseExpression()
            guard isSymbol(peek, ")") else { throw failure(expected: "')'") }
            index += 1
            return inner
        }
        return try parseComparison()
    }

    mutating func parseComparison() throws -> SearchFilter {
        let property: String
        switch peek?.kind {
        case .word(let w)? where !["and", "or"].contains(w.lowercased()): property = w
        case .string(let s)?: property = s
        default: throw failure(expected: "a property name")
        }
        index += 1
        let operation = try parseOperator()
        let (value, isDate) = try parseValue()
        let type = isDate ? "date" : SearchFilter.inferredType(of: value)
        return .comparison(operation: operation, property: property, value: value, type: type)
    }

    mutating func parseOperator() throws -> SearchFilterOperation {
        guard let token = peek else { throw failure(expected: "an operator") }
        switch token.kind {
        case .symbol(let s):
            guard let operation = SearchFilterOperation(rawValue: s) else { throw failure(expected: "an operator") }
            index += 1
            return operation
        case .word(let w):
            switch w.lowercased() {
            case "in": index += 1; return .valueIn
            case "like": index += 1; return .like
            case "not" where isKeyword(index + 1 < tokens.count ? tokens[index + 1] : nil, "in"):
                index += 2
                return .valueNotIn
            default: throw failure(expected: "an operator")
            }
        default: throw failure(expected: "an operator")
        }
    }

    /// A value, and whether it is a date (for a list: whether its first element is).
    mutating func parseValue() throws -> (JSONValue, isDate: Bool) {
        guard let token = peek else { throw failure(expected: "a value") }
        switch token.kind {
        case .number(let n): index += 1; return (.number(n), false)
        case .date(let ms): index += 1; return (.number(ms), true)
        case .string(let s): index += 1; return (.string(s), false)
        case .word(let w):
            index += 1
            switch w.lowercased() {
            case "true": return (.bool(true), false)
            case "false": return (.bool(false), false)
            case "null": return (.null, false)
            default: return (.string(w), false)
            }
        case .symbol("["):
            index += 1
            var items: [JSONValue] = []
            var firstIsDate = false
            if isSymbol(peek, "]") { index += 1; return (.array(items), false) }
            while true {
                let (item, isDate) = try parseValue()
                if items.isEmpty { firstIsDate = isDate }
                items.append(item)
                if isSymbol(peek, ",") { index += 1; continue }
                guard isSymbol(peek, "]") else { throw failure(expected: "',' or ']'") }
                index += 1
                return (.array(items), firstIsDate)
            }
        default: throw failure(expected: "a value")
        }
    }
}

extension SearchFilter {
    /// The operands to splice into a parent group of `condition` (a same-condition group flattens).
    fileprivate func operands(of condition: SearchFilterCondition) -> [SearchFilter] {
        if case .group(let own, let operands) = self, own == condition { return operands }
        return [self]
    }
}

extension SearchFilter {
    /// The filter written in the expression language of `parse(expression:)`, e.g.
    /// `price >= 10 and (inStock = true or title like "ab")`. Parsing it gives the same tree
    /// (`date` values are written `@<ms>`), except for `type` overrides the language cannot
    /// express (e.g. `number` on a string), which come back inferred from the value.
    public var expression: String { render(nestedIn: nil) }

    private func render(nestedIn parent: SearchFilterCondition?) -> String {
        switch self {
        case .group(let condition, let operands):
            guard !operands.isEmpty else { return "" }
            let text = operands.map { $0.render(nestedIn: condition) }.joined(separator: " \(condition.rawValue) ")
            // Parenthesize a nested group unless it is the same connective (which flattens anyway).
            return parent == nil || parent == condition || operands.count == 1 ? text : "(\(text))"
        case .comparison(let operation, let property, let value, let type):
            return "\(Self.renderProperty(property)) \(operation.rawValue) \(Self.renderValue(value, asDate: type == "date"))"
        }
    }

    private static let keywords: Set<String> = ["and", "or", "in", "not", "like", "true", "false", "null"]

    private static func renderProperty(_ name: String) -> String {
        let isWord =
            name.first.map { $0.isLetter || $0 == "_" } ?? false
            && name.allSatisfy { $0.isLetter || $0.isNumber || "_.-:".contains($0) }
        return isWord && !keywords.contains(name.lowercased()) ? name : renderString(name)
    }

    private static func renderString(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private static func renderValue(_ value: JSONValue, asDate: Bool) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number: return (asDate ? "@" : "") + value.jsonString()
        case .string(let s): return renderString(s)
        case .array(let items): return "[" + items.map { renderValue($0, asDate: asDate) }.joined(separator: ", ") + "]"
        case .object: return renderString(value.jsonString())
        }
    }
}
