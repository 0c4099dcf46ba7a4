import Foundation

/// A small infix language for search filters, used by the `halo` command and the app's filter
/// builder: `price >= 10 and (inStock = true or title like "ab")`.
///
/// Grammar (keywords are case-insensitive):
/// ```
/// expression := term ("or" term)*
/// term       := factor ("and" factor)*              -- "and" binds tighter than "or"
/// factor     := "(" expression ")" | group-call | comparison
/// group-call := ("and" | "or") "(" [expression ("," expression)*] ")"   -- and(), or(a = 1)
/// comparison := property operator value ["as" type]
/// property   := word | quoted-string                 -- quote names with spaces: "Artwork ID"
/// operator   := "=" | "==" | "!=" | ">" | "<" | ">=" | "<=" | "in" | "!in" | "not in" | "like"
/// value      := number | quoted-string | "true" | "false" | "null" | date | word | list | object
/// date       := "@" (epoch-milliseconds | ISO 8601 date or date-time)   -- sent as ms, type "date"
/// list       := "[" [value ("," value)*] "]"
/// object     := a JSON object, e.g. {"en": "Hello"}
/// type       := word | quoted-string                 -- the wire "type" hint, when not the inferred one
/// word       := letters, digits and _ . - : (starting with a letter or _)
/// ```
/// Strings are written in `"…"` or `'…'` with `\` escaping the next character. A bare word
/// value is a string (`title like ab`). A chain of the same connective is one group
/// (`a and b and c` → one `and` with three operands); a parenthesized group stays a group of its
/// own (`a and (b and c)`), and `and(…)` / `or(…)` write groups of fewer than two operands.
/// Operand order is kept as written. Value types follow the seed functions' inference (§11.2);
/// dates (`@2024-05-01`, `@2024-05-01T10:00:00Z`, `@1714557600000`) become milliseconds with
/// type `date`; `as number` (any type name) sets another type. So every tree the wire JSON can
/// hold has exactly one text, and parsing that text gives the tree back.
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
        /// A JSON object literal.
        case object(JSONValue)
        case symbol(String)  // ( ) [ ] , and the comparison operators

        var display: String {
            switch self {
            case .word(let w): return "'\(w)'"
            case .string(let s): return "\"\(s)\""
            case .number(let n): return JSONValue.number(n).jsonString()
            case .date(let ms): return "@" + JSONValue.number(ms).jsonString()
            case .object(let value): return value.jsonString()
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
            } else if c == "{" {
                let end = try objectEnd(chars, from: i, position: start)
                guard let value = try? JSONValue(data: Data(String(chars[i...end]).utf8)) else {
                    throw HaloError.invalidInput(message: "The object at character \(start) of the filter is not valid JSON.")
                }
                tokens.append(FilterToken(kind: .object(value), position: start))
                i = end + 1
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

    /// The index of the `}` closing the `{` at `start` (braces inside JSON strings skipped).
    private static func objectEnd(_ chars: [Character], from start: Int, position: Int) throws -> Int {
        var depth = 0
        var inString = false
        var index = start
        while index < chars.count {
            let c = chars[index]
            if inString {
                if c == "\\" { index += 1 } else if c == "\"" { inString = false }
            } else if c == "\"" {
                inString = true
            } else if c == "{" {
                depth += 1
            } else if c == "}" {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        throw HaloError.invalidInput(message: "The object starting at character \(position) of the filter is not closed.")
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
    /// Whether a bare `meta.` prefix marks a metadata property (`SearchFilters`).
    let readsMetadataPrefix: Bool
    /// For each comparison, in the order written (the tree's pre-order): whether it is on
    /// metadata, and the character where it starts.
    private(set) var comparisons: [(isMetadata: Bool, position: Int)] = []

    init(tokens: [FilterToken], readsMetadataPrefix: Bool = false) {
        self.tokens = tokens
        self.readsMetadataPrefix = readsMetadataPrefix
    }

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

    /// A chain of `or`: one group however long (a parenthesized operand stays a group of its own).
    mutating func parseExpression() throws -> SearchFilter {
        var operands = [try parseTerm()]
        while isKeyword(peek, "or") {
            index += 1
            operands.append(try parseTerm())
        }
        return operands.count == 1 ? operands[0] : .group(.or, operands)
    }

    mutating func parseTerm() throws -> SearchFilter {
        var operands = [try parseFactor()]
        while isKeyword(peek, "and") {
            index += 1
            operands.append(try parseFactor())
        }
        return operands.count == 1 ? operands[0] : .group(.and, operands)
    }

    /// Open parentheses; bounded so hostile input cannot exhaust the stack.
    private var depth = 0
    static let maxDepth = 100

    mutating func parseFactor() throws -> SearchFilter {
        let groupCall = ["and", "or"].first { isKeyword(peek, $0) && index + 1 < tokens.count && isSymbol(tokens[index + 1], "(") }
        guard isSymbol(peek, "(") || groupCall != nil else { return try parseComparison() }
        guard depth < Self.maxDepth else {
            throw HaloError.invalidInput(message: "The filter nests parentheses deeper than \(Self.maxDepth).")
        }
        depth += 1
        defer { depth -= 1 }
        if let groupCall, let condition = SearchFilterCondition(rawValue: groupCall) {
            index += 2
            var operands: [SearchFilter] = []
            while !isSymbol(peek, ")") {
                if !operands.isEmpty {
                    guard isSymbol(peek, ",") else { throw failure(expected: "',' or ')'") }
                    index += 1
                }
                operands.append(try parseExpression())
            }
            index += 1
            return .group(condition, operands)
        }
        index += 1
        let inner = try parseExpression()
        guard isSymbol(peek, ")") else { throw failure(expected: "')'") }
        index += 1
        return inner
    }

    mutating func parseComparison() throws -> SearchFilter {
        var property: String
        var isMetadata = false
        let position = peek?.position ?? 0
        switch peek?.kind {
        case .word(let w)? where !["and", "or"].contains(w.lowercased()): property = w
        case .string(let s)?: property = s
        default: throw failure(expected: "a property name")
        }
        index += 1
        if readsMetadataPrefix, case .word(let w) = tokens[index - 1].kind, w.hasPrefix(SearchFilters.metadataPrefix) {
            isMetadata = true
            property = String(w.dropFirst(SearchFilters.metadataPrefix.count))
            if property.isEmpty {  // meta."a name"
                guard case .string(let name)? = peek?.kind else { throw failure(expected: "a metadata name after 'meta.'") }
                property = name
                index += 1
            }
        }
        comparisons.append((isMetadata, position))
        let operation = try parseOperator()
        let (value, isDate) = try parseValue()
        var type = isDate ? "date" : SearchFilter.inferredType(of: value)
        if isKeyword(peek, "as") {
            index += 1
            switch peek?.kind {
            case .word(let name)?: type = name
            case .string(let name)?: type = name
            default: throw failure(expected: "a type name after 'as'")
            }
            index += 1
        }
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
        case .object(let value): index += 1; return (value, false)
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

/// The filters of a search as one expression: conditions on instance values (`searchValues`)
/// and, written with a `meta.` prefix, conditions on metadata (`metaSearch`):
/// `price >= 10 and meta.updatedAt > @2024-05-01`. The server applies both, so in the
/// expression they meet only through `and` at the top level; a group mixing the two is refused,
/// saying where. A value field whose name starts with `meta.` is written quoted (`"meta.x" = 1`).
/// An empty expression is no filter at all. `halo search --filter` and the app's filter builder
/// read and write this form.
public struct SearchFilters: Hashable, Sendable {
    /// On instance values (`searchValues`).
    public var values: SearchFilter?
    /// On metadata: name, createdAt, updatedAt, publishedAt, … (`metaSearch`).
    public var metadata: SearchFilter?

    public init(values: SearchFilter? = nil, metadata: SearchFilter? = nil) {
        self.values = values
        self.metadata = metadata
    }

    public var isEmpty: Bool { values == nil && metadata == nil }

    static let metadataPrefix = "meta."

    /// Parses the expression; a syntax error, or a group mixing values and metadata, is a
    /// `HaloError.invalidInput` that says what is wrong and at which character (1-based).
    public static func parse(expression: String) throws -> SearchFilters {
        let tokens = try FilterExpressionLexer.tokenize(expression)
        guard !tokens.isEmpty else { return SearchFilters() }
        var parser = FilterExpressionParser(tokens: tokens, readsMetadataPrefix: true)
        let tree = try parser.parseExpression()
        if let extra = parser.peek {
            throw HaloError.invalidInput(message: "Unexpected \(extra.kind.display) at character \(extra.position) of the filter.")
        }
        var split = Splitter(comparisons: parser.comparisons)
        return try split.filters(of: tree)
    }

    /// The filters as the one tree their text form writes (values, then metadata, joined by the
    /// top-level `and`), and for each comparison in pre-order whether it is on metadata. The filter
    /// builder edits this tree; nil when there is no filter.
    public var combined: (tree: SearchFilter, metadataComparisons: [Bool])? {
        func flags(_ tree: SearchFilter, _ isMetadata: Bool) -> [Bool] {
            switch tree {
            case .comparison: return [isMetadata]
            case .group(_, let operands): return operands.flatMap { flags($0, isMetadata) }
            }
        }
        switch (values, metadata) {
        case (nil, nil): return nil
        case (let values?, nil): return (values, flags(values, false))
        case (nil, let metadata?): return (metadata, flags(metadata, true))
        case (let values?, let metadata?):
            let flatMetadata = metadata.isAndOfSeveral && !metadata.hasOperandWithoutConditions
            func operands(_ tree: SearchFilter, flat: Bool) -> [SearchFilter] {
                if flat, case .group(_, let parts) = tree { return parts }
                return [tree]
            }
            let tree = SearchFilter.group(.and, operands(values, flat: values.isAndOfSeveral) + operands(metadata, flat: flatMetadata))
            return (tree, flags(values, false) + flags(metadata, true))
        }
    }

    /// The filters of a combined tree (see `combined`); a group mixing values and metadata is
    /// refused as the text form refuses it.
    public init(combined tree: SearchFilter, metadataComparisons: [Bool]) throws {
        var splitter = Splitter(comparisons: metadataComparisons.map { ($0, 0) })
        self = try splitter.filters(of: tree)
    }

    /// Sorts a parsed tree's parts into values and metadata, following the parser's record of
    /// which comparison was which (in pre-order).
    private struct Splitter {
        /// What a node holds: only value comparisons, only metadata ones, or none (empty groups).
        enum Side { case values, metadata, neither }

        let comparisons: [(isMetadata: Bool, position: Int)]
        var next = 0

        mutating func side(of node: SearchFilter) throws -> Side {
            switch node {
            case .comparison:
                defer { next += 1 }
                return next < comparisons.count && comparisons[next].isMetadata ? .metadata : .values
            case .group(_, let operands):
                let first = next
                let sides = Set(try operands.map { try side(of: $0) })
                if sides.contains(.values) && sides.contains(.metadata) {
                    let position = comparisons[first..<next].first(where: \.isMetadata)?.position ?? 0
                    let which = position > 0 ? "The metadata condition at character \(position) of the filter" : "A metadata condition"
                    throw HaloError.invalidInput(
                        message: "\(which) is in a group with value conditions: "
                            + "values and metadata are searched separately, so they can only be joined by 'and' at the top level.")
                }
                return sides.contains(.metadata) ? .metadata : sides.contains(.values) ? .values : .neither
            }
        }

        /// A top-level `and` of several operands may join both kinds; anything else is one kind.
        /// Parts without a condition (empty groups) go with the only kind present, else with the
        /// values (which the text writes first).
        mutating func filters(of tree: SearchFilter) throws -> SearchFilters {
            guard case .group(.and, let operands) = tree, operands.count > 1 else {
                return try side(of: tree) == .metadata ? SearchFilters(metadata: tree) : SearchFilters(values: tree)
            }
            let sides = try operands.map { try side(of: $0) }
            if !sides.contains(.metadata) { return SearchFilters(values: tree) }
            if !sides.contains(.values) { return SearchFilters(metadata: tree) }
            let metadata = zip(operands, sides).filter { $0.1 == .metadata }.map(\.0)
            let values = zip(operands, sides).filter { $0.1 != .metadata }.map(\.0)
            func joined(_ parts: [SearchFilter]) -> SearchFilter? { parts.count > 1 ? .group(.and, parts) : parts.first }
            return SearchFilters(values: joined(values), metadata: joined(metadata))
        }
    }

    /// The filters in the expression language of `parse(expression:)`; parsing it gives the same
    /// two trees back, except where a part has no condition at all (only empty groups, which match
    /// everything): with both parts present it reads back joined to the other part, and alone as
    /// values. Values come first, then metadata, joined by `and`.
    public var expression: String {
        guard let (tree, metadataComparisons) = combined else { return "" }
        var isMetadata = metadataComparisons.makeIterator()
        return tree.render(nested: false, isMetadata: &isMetadata)
    }
}

extension SearchFilter {
    /// An `and` group of two or more operands.
    fileprivate var isAndOfSeveral: Bool {
        if case .group(.and, let operands) = self { return operands.count > 1 }
        return false
    }

    fileprivate var hasOperandWithoutConditions: Bool {
        if case .group(_, let operands) = self { return operands.contains { !$0.hasConditions } }
        return false
    }

    private var hasConditions: Bool {
        switch self {
        case .comparison: return true
        case .group(_, let operands): return operands.contains { $0.hasConditions }
        }
    }
}

extension SearchFilter {
    /// The filter written in the expression language of `parse(expression:)`, e.g.
    /// `price >= 10 and (inStock = true or title like "ab")`. Parsing it gives the same tree:
    /// every group, operand order, value and type hint.
    public var expression: String {
        var noMetadata = [Bool]().makeIterator()
        return render(nested: false, isMetadata: &noMetadata)
    }

    /// `isMetadata` tells, comparison by comparison in the order written, which are on metadata:
    /// those are written with the `meta.` prefix of `SearchFilters` (a value property starting
    /// with it is quoted). Past its end, comparisons are on values.
    fileprivate func render(nested: Bool, isMetadata: inout IndexingIterator<[Bool]>) -> String {
        switch self {
        case .group(let condition, let operands):
            var parts: [String] = []
            for operand in operands { parts.append(operand.render(nested: operands.count > 1, isMetadata: &isMetadata)) }
            if operands.count < 2 { return "\(condition.rawValue)(" + parts.joined(separator: ", ") + ")" }
            let text = parts.joined(separator: " \(condition.rawValue) ")
            return nested ? "(\(text))" : text
        case .comparison(let operation, let property, let value, let type):
            let asDate = type == "date" && Self.writesAsDate(value)
            let name = Self.renderProperty(property, metadata: isMetadata.next() ?? false)
            let written = "\(name) \(operation.rawValue) \(Self.renderValue(value, asDate: asDate))"
            let parsedType = asDate ? "date" : Self.inferredType(of: value)
            return type == parsedType ? written : "\(written) as \(Self.renderProperty(type))"
        }
    }

    private static let keywords: Set<String> = ["and", "or", "in", "not", "like", "true", "false", "null", "as"]

    /// Whether `value` can be written as `@<ms>` dates: whole non-negative milliseconds (a list:
    /// all its numbers, the first item being one).
    private static func writesAsDate(_ value: JSONValue) -> Bool {
        func isMilliseconds(_ item: JSONValue) -> Bool {
            guard case .number(let n) = item else { return false }
            return n >= 0 && n < 1e15 && n.rounded() == n
        }
        switch value {
        case .number: return isMilliseconds(value)
        case .array(let items):
            guard let first = items.first, isMilliseconds(first) else { return false }
            return items.allSatisfy { item in if case .number = item { isMilliseconds(item) } else { true } }
        default: return false
        }
    }

    private static func renderProperty(_ name: String, metadata: Bool = false) -> String {
        let isWord =
            name.first.map { $0.isLetter || $0 == "_" } ?? false
            && name.allSatisfy { $0.isLetter || $0.isNumber || "_.-:".contains($0) }
        if metadata { return SearchFilters.metadataPrefix + (isWord ? name : renderString(name)) }
        // A value field named like a metadata one is quoted, so that it stays a value field.
        let isPlain = isWord && !keywords.contains(name.lowercased()) && !name.hasPrefix(SearchFilters.metadataPrefix)
        return isPlain ? name : renderString(name)
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
        case .object: return value.jsonString()
        }
    }
}

extension HaloError {
    /// Where a filter's syntax error is, for editors that point at it: the 1-based character its
    /// message names, or one past the end for "at the end of the filter"; nil for other errors.
    public func filterErrorCharacter(in expression: String) -> Int? {
        guard case .invalidInput(let message) = self else { return nil }
        if message.contains("at the end of the filter") { return expression.count + 1 }
        guard let range = message.range(of: #"at character [0-9]+"#, options: .regularExpression) else { return nil }
        return Int(message[range].dropFirst("at character ".count))
    }
}
