import Foundation
import HaloServices

/// The JSON types the structured editor offers; a node changes type only when the user picks one.
enum JSONType: String, CaseIterable, Sendable {
    case object, array, string, number, boolean, null

    /// The badge and the type picker's option, in JSON's own words (the pocket is a developer's
    /// document; "string" is what its readers call it).
    var label: String { rawValue }
}

/// One node of a JSON value being edited, with an id that stays the same while it is edited
/// (moved, renamed, retyped), so the keyboard can be given back to it after a rebuild.
///
/// Numbers keep the text typed (a number typed as `123.0` is saved as the value 123.0, which JSON
/// writes `123`), so text that is not yet a number is never coerced: it is a problem at the node.
/// Object members keep their order while edited; they are saved with sorted keys, as the server
/// stores them.
struct JSONDraftNode: Equatable, Sendable {
    let id: Int
    var content: Content

    indirect enum Content: Equatable, Sendable {
        case null
        case bool(Bool)
        case number(String)
        case string(String)
        case array([JSONDraftNode])
        case object([Member])
    }

    struct Member: Equatable, Sendable {
        var key: String
        var value: JSONDraftNode
    }

    var type: JSONType {
        switch content {
        case .null: .null
        case .bool: .boolean
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    /// The nodes directly under this one (array items, or member values).
    var children: [JSONDraftNode] {
        switch content {
        case .array(let items): items
        case .object(let members): members.map(\.value)
        default: []
        }
    }

    func find(_ id: Int) -> JSONDraftNode? {
        if self.id == id { return self }
        return children.lazy.compactMap { $0.find(id) }.first
    }

    /// The container holding the node, and the node's index in it.
    func parent(of id: Int) -> (JSONDraftNode, Int)? {
        if let index = children.firstIndex(where: { $0.id == id }) { return (self, index) }
        return children.lazy.compactMap { $0.parent(of: id) }.first
    }

    /// The member key of the node (nil: an array item or the root).
    func key(of id: Int) -> String? {
        guard let (parent, index) = parent(of: id), case .object(let members) = parent.content else { return nil }
        return members[index].key
    }

    mutating func update(_ id: Int, _ change: (inout JSONDraftNode) -> Void) {
        if self.id == id { return change(&self) }
        switch content {
        case .array(var items):
            for index in items.indices { items[index].update(id, change) }
            content = .array(items)
        case .object(var members):
            for index in members.indices { members[index].value.update(id, change) }
            content = .object(members)
        default: break
        }
    }
}

/// What keeps a draft from being a JSON value, at the node it is about.
struct JSONDraftProblem: Error, Equatable, Sendable, CustomStringConvertible {
    let node: Int
    let description: String
}

/// A JSON value under edit: the structured editor's model. Edits go by node id; every edit that
/// changes something is one step of `EditHistory`. The value read back (`value`) of a draft
/// made from a value and not edited is that value, so saving it sends the same bytes.
struct JSONDraft: Equatable, Sendable {
    private(set) var root: JSONDraftNode
    private var nextId = 1
    /// The root's type cannot change (the pocket's `data` is always an object).
    let fixedRootType: JSONType?

    init(_ value: JSONValue, fixedRootType: JSONType? = nil) {
        self.fixedRootType = fixedRootType
        root = JSONDraftNode(id: 0, content: .null)
        root = node(for: value)
    }

    // MARK: Reading

    func node(_ id: Int) -> JSONDraftNode? { root.find(id) }

    /// The value, or the first problem in tree order.
    func value() throws(JSONDraftProblem) -> JSONValue {
        if let problem = problems.first { throw problem }
        return Self.value(of: root)
    }

    /// Everything that keeps the draft from being JSON: numbers that are not numbers, repeated
    /// member names.
    var problems: [JSONDraftProblem] {
        var found: [JSONDraftProblem] = []
        Self.collectProblems(in: root, into: &found)
        return found
    }

    /// The draft as indented JSON text, members in the order shown (the raw-text mode).
    var text: String {
        var out = ""
        Self.write(root, indent: "", into: &out)
        return out
    }

    // MARK: Editing (each returns the id of the node it makes, where it makes one)

    /// Sets a scalar: `.string`, `.number` (its text) or `.bool`; containers change by the
    /// structural edits below.
    mutating func set(_ id: Int, to content: JSONDraftNode.Content) {
        root.update(id) { node in
            switch (node.content, content) {
            case (.string, .string), (.number, .number), (.bool, .bool): node.content = content
            default: break
            }
        }
    }

    /// Gives the node another type, keeping what still fits: text that is a number becomes that
    /// number and back; "true"/"false" become a boolean and back; an array becomes an object keyed
    /// by position and an object an array of its values. Anything else starts empty.
    mutating func changeType(of id: Int, to type: JSONType) {
        if id == root.id, let fixedRootType, type != fixedRootType { return }
        guard let node = node(id), node.type != type else { return }
        let converted = converted(node.content, to: type)
        root.update(id) { $0.content = converted }
    }

    /// Appends a member named `key` (else the first free "key", "key 2", …) to an object.
    @discardableResult
    mutating func addMember(to objectId: Int, key: String? = nil, type: JSONType = .string) -> Int? {
        guard case .object(let members)? = node(objectId)?.content else { return nil }
        let name = key ?? Self.freeKey(among: Set(members.map(\.key)))
        let member = JSONDraftNode.Member(key: name, value: JSONDraftNode(id: takeId(), content: emptyContent(type)))
        root.update(objectId) { $0.content = .object(members + [member]) }
        return member.value.id
    }

    /// Inserts an item into an array at `index` (its end when nil).
    @discardableResult
    mutating func addItem(to arrayId: Int, at index: Int? = nil, type: JSONType = .string) -> Int? {
        guard case .array(var items)? = node(arrayId)?.content else { return nil }
        let item = JSONDraftNode(id: takeId(), content: emptyContent(type))
        items.insert(item, at: min(index ?? items.count, items.count))
        root.update(arrayId) { $0.content = .array(items) }
        return item.id
    }

    /// Renames a member. A name another member has is kept and shown as a problem (the user may
    /// be typing through it); the value is never lost.
    mutating func rename(_ id: Int, to key: String) {
        guard let (parent, index) = root.parent(of: id), case .object(var members) = parent.content else { return }
        members[index].key = key
        root.update(parent.id) { $0.content = .object(members) }
    }

    mutating func remove(_ id: Int) {
        guard let (parent, index) = root.parent(of: id) else { return }
        root.update(parent.id) { node in
            switch node.content {
            case .array(var items):
                items.remove(at: index)
                node.content = .array(items)
            case .object(var members):
                members.remove(at: index)
                node.content = .object(members)
            default: break
            }
        }
    }

    /// Moves an array item or a member up (-1) or down (+1) among its siblings.
    mutating func move(_ id: Int, by offset: Int) {
        guard let (parent, index) = root.parent(of: id) else { return }
        let target = index + offset
        root.update(parent.id) { node in
            switch node.content {
            case .array(var items) where items.indices.contains(target):
                items.swapAt(index, target)
                node.content = .array(items)
            case .object(var members) where members.indices.contains(target):
                members.swapAt(index, target)
                node.content = .object(members)
            default: break
            }
        }
    }

    /// A copy right after the node (a member's copy is named "<key> copy", made unique).
    @discardableResult
    mutating func duplicate(_ id: Int) -> Int? {
        guard let (parent, index) = root.parent(of: id), let original = node(id) else { return nil }
        // Copied node by node (not through its value): text that is not a number yet and repeated
        // names are copied as they are, problems included, never turned into something else.
        let copy = renumbered(original)
        root.update(parent.id) { node in
            switch node.content {
            case .array(var items):
                items.insert(copy, at: index + 1)
                node.content = .array(items)
            case .object(var members):
                let key = Self.freeKey(among: Set(members.map(\.key)), base: members[index].key + " copy")
                members.insert(JSONDraftNode.Member(key: key, value: copy), at: index + 1)
                node.content = .object(members)
            default: break
            }
        }
        return copy.id
    }

    /// Sets the root object's member `key` to `value` (nil removes it); the other members and
    /// their edits stay as they are (the pocket review's Revert).
    mutating func setRootMember(_ key: String, to value: JSONValue?) {
        guard case .object(var members) = root.content else { return }
        let index = members.firstIndex { $0.key == key }
        switch (index, value) {
        case (let index?, let value?): members[index].value = node(for: value)
        case (let index?, nil): members.remove(at: index)
        case (nil, let value?): members.append(JSONDraftNode.Member(key: key, value: node(for: value)))
        case (nil, nil): return
        }
        let rootId = root.id
        root.update(rootId) { $0.content = .object(members) }
    }

    /// Replaces the whole value with JSON text (the raw-text mode); the draft is unchanged when
    /// the text is not JSON of the root's fixed type.
    mutating func replace(withText text: String) throws(JSONTextProblem) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text, rejectingDuplicateKeys: true)
        } catch {
            throw JSONTextProblem(error, in: text)
        }
        let built = node(for: value)
        if let fixedRootType, built.type != fixedRootType {
            throw JSONTextProblem(message: "The value must be an \(fixedRootType.label)", characterOffset: 0, line: 1, column: 1)
        }
        root = built
    }

    // MARK: Building

    private mutating func takeId() -> Int {
        defer { nextId += 1 }
        return nextId
    }

    /// A new node (with new ids) for a value; object members in key order.
    private mutating func node(for value: JSONValue) -> JSONDraftNode {
        let id = takeId()
        switch value {
        case .null: return JSONDraftNode(id: id, content: .null)
        case .bool(let flag): return JSONDraftNode(id: id, content: .bool(flag))
        case .number: return JSONDraftNode(id: id, content: .number(value.compactJSONText))
        case .string(let text): return JSONDraftNode(id: id, content: .string(text))
        case .array(let items): return JSONDraftNode(id: id, content: .array(items.map { node(for: $0) }))
        case .object(let members):
            return JSONDraftNode(
                id: id,
                content: .object(
                    members.keys.sorted().map { key in JSONDraftNode.Member(key: key, value: node(for: members[key] ?? .null)) }))
        }
    }

    /// The same node with new ids throughout.
    private mutating func renumbered(_ node: JSONDraftNode) -> JSONDraftNode {
        let id = takeId()
        switch node.content {
        case .array(let items): return JSONDraftNode(id: id, content: .array(items.map { renumbered($0) }))
        case .object(let members):
            return JSONDraftNode(id: id, content: .object(members.map { JSONDraftNode.Member(key: $0.key, value: renumbered($0.value)) }))
        default: return JSONDraftNode(id: id, content: node.content)
        }
    }

    private mutating func emptyContent(_ type: JSONType) -> JSONDraftNode.Content {
        switch type {
        case .object: .object([])
        case .array: .array([])
        case .string: .string("")
        case .number: .number("0")
        case .boolean: .bool(false)
        case .null: .null
        }
    }

    private mutating func converted(_ content: JSONDraftNode.Content, to type: JSONType) -> JSONDraftNode.Content {
        switch (content, type) {
        case (.string(let text), .number) where Self.isNumber(text): return .number(text)
        case (.number(let text), .string): return .string(text)
        case (.string(let text), .boolean) where text == "true" || text == "false": return .bool(text == "true")
        case (.bool(let flag), .string): return .string(flag ? "true" : "false")
        case (.array(let items), .object):
            return .object(items.enumerated().map { JSONDraftNode.Member(key: String($0.offset), value: $0.element) })
        case (.object(let members), .array): return .array(members.map(\.value))
        default: return emptyContent(type)
        }
    }

    private static func freeKey(among taken: Set<String>, base: String = "key") -> String {
        if !taken.contains(base) { return base }
        return (2...).lazy.map { "\(base) \($0)" }.first { !taken.contains($0) } ?? base
    }

    // MARK: Reading back

    /// A JSON number exactly as RFC 8259 writes one (no "+1", ".5", "1." or "0x10"), finite.
    static func isNumber(_ text: String) -> Bool {
        guard case .number(let number)? = try? JSONValue(parsing: text) else { return false }
        return number.isFinite
    }

    private static func value(of node: JSONDraftNode) -> JSONValue {
        switch node.content {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let text): return (try? JSONValue(parsing: text)) ?? .null
        case .string(let text): return .string(text)
        case .array(let items): return .array(items.map(value(of:)))
        case .object(let members):
            return .object(Dictionary(members.map { ($0.key, value(of: $0.value)) }, uniquingKeysWith: { first, _ in first }))
        }
    }

    private static func collectProblems(in node: JSONDraftNode, into found: inout [JSONDraftProblem]) {
        switch node.content {
        case .number(let text) where !isNumber(text):
            found.append(JSONDraftProblem(node: node.id, description: text.isEmpty ? "Type a number." : "“\(text)” is not a number."))
        case .array(let items):
            items.forEach { collectProblems(in: $0, into: &found) }
        case .object(let members):
            var seen = Set<String>()
            for member in members {
                // An empty name is valid JSON (and may be in a pocket already); a repeated one is not.
                if !seen.insert(member.key).inserted {
                    found.append(JSONDraftProblem(node: member.value.id, description: "Another member is already named “\(member.key)”."))
                }
                collectProblems(in: member.value, into: &found)
            }
        default: break
        }
    }

    private static func write(_ node: JSONDraftNode, indent: String, into out: inout String) {
        let inner = indent + "  "
        switch node.content {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): out += JSONValue.string(text).compactJSONText
        case .array(let items) where items.isEmpty: out += "[]"
        case .array(let items):
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += inner
                write(item, indent: inner, into: &out)
                out += index + 1 < items.count ? ",\n" : "\n"
            }
            out += indent + "]"
        case .object(let members) where members.isEmpty: out += "{}"
        case .object(let members):
            out += "{\n"
            for (index, member) in members.enumerated() {
                out += inner + JSONValue.string(member.key).compactJSONText + ": "
                write(member.value, indent: inner, into: &out)
                out += index + 1 < members.count ? ",\n" : "\n"
            }
            out += indent + "}"
        }
    }
}

/// Why JSON text was refused, and where: the raw-text mode marks the character and says the line
/// and column.
struct JSONTextProblem: Error, Equatable, Sendable, CustomStringConvertible {
    let message: String
    /// 0-based, in Unicode scalars (what GTK's text buffer counts).
    let characterOffset: Int
    let line: Int
    let column: Int

    init(message: String, characterOffset: Int, line: Int, column: Int) {
        self.message = message
        self.characterOffset = characterOffset
        self.line = line
        self.column = column
    }

    init(_ error: any Error, in text: String) {
        let parseError = error as? JSONValueError
        let bytes = min(parseError?.byteOffset ?? 0, text.utf8.count)
        let before = String(decoding: text.utf8.prefix(bytes), as: UTF8.self).unicodeScalars
        let lastLine = before.split(separator: "\n", omittingEmptySubsequences: false).last ?? Substring.UnicodeScalarView()
        self.init(
            message: parseError?.reason ?? "\(error)", characterOffset: before.count,
            line: before.filter { $0 == "\n" }.count + 1, column: lastLine.count + 1)
    }

    var description: String { "Line \(line), column \(column): \(message)" }
}

extension JSONValue {
    /// Indented JSON text, keys sorted (the filter builder's request, the pocket's versions).
    var indentedText: String { JSONDraft(self).text }
}
