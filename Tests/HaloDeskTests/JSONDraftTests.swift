import Foundation
import HaloServices
import PropertyBased
import Testing
import XCTest

@testable import HaloDesk

/// The structured editor's model (no GUI): no type drift, problems at their node, the raw-text
/// mode's error positions, and undo steps.
final class JSONDraftTests: XCTestCase {
    func testTypesChangeOnlyWhenPicked() throws {
        let value: JSONValue = ["text": "null", "plus": "+1", "float": .number(123.0), "flag": "true", "none": .null]
        var draft = JSONDraft(value, fixedRootType: .object)
        XCTAssertEqual(try draft.value().compactJSONText, value.compactJSONText)
        let plus = try XCTUnwrap(member("plus", of: draft))
        XCTAssertEqual(plus.type, .string, "the string +1 stays a string")
        XCTAssertEqual(member("text", of: draft)?.type, .string, "the string null stays a string")

        // A number typed as 123.0 keeps its value; text that is no number is a problem, never coerced.
        let float = try XCTUnwrap(member("float", of: draft))
        draft.set(float.id, to: .number("123.0"))
        XCTAssertEqual(try draft.value().objectValue?["float"], .number(123))
        draft.set(float.id, to: .number("12,5"))
        XCTAssertEqual(draft.problems, [JSONDraftProblem(node: float.id, description: "“12,5” is not a number.")])
        XCTAssertThrowsError(try draft.value())
        draft.set(float.id, to: .number("+1"))
        XCTAssertEqual(draft.problems.count, 1, "JSON numbers have no leading +")
        // Setting a string's text on a number node does nothing: the type changes only when picked.
        draft.set(float.id, to: .string("7"))
        XCTAssertEqual(draft.node(float.id)?.content, .number("+1"))

        // Picking a type keeps what fits: "+1" is no number, so the number starts at 0; "true" is a boolean.
        draft.changeType(of: plus.id, to: .number)
        XCTAssertEqual(draft.node(plus.id)?.content, .number("0"))
        let flag = try XCTUnwrap(member("flag", of: draft))
        draft.changeType(of: flag.id, to: .boolean)
        XCTAssertEqual(draft.node(flag.id)?.content, .bool(true))
        draft.changeType(of: flag.id, to: .string)
        XCTAssertEqual(draft.node(flag.id)?.content, .string("true"))
        // The pocket's data stays an object.
        draft.changeType(of: draft.root.id, to: .array)
        XCTAssertEqual(draft.root.type, .object)
    }

    func testStructuralEditsAndMemberNames() throws {
        var draft = JSONDraft(["list": [1, 2, 3]], fixedRootType: .object)
        let first = try XCTUnwrap(draft.addMember(to: draft.root.id))
        XCTAssertEqual(draft.root.key(of: first), "key")
        let second = try XCTUnwrap(draft.addMember(to: draft.root.id, type: .object))
        XCTAssertEqual(draft.root.key(of: second), "key 2")
        draft.rename(second, to: "key")
        XCTAssertEqual(draft.problems.map(\.description), ["Another member is already named “key”."])
        draft.rename(second, to: "")
        XCTAssertEqual(draft.problems, [], "an empty name is valid JSON")
        draft.rename(second, to: "settings")
        XCTAssertEqual(draft.problems, [])

        let list = try XCTUnwrap(member("list", of: draft))
        let items = list.children.map(\.id)
        draft.move(items[0], by: 1)
        draft.move(items[2], by: 1)  // already last: nothing moves
        XCTAssertEqual(try draft.value().objectValue?["list"], [2, 1, 3])
        let copy = try XCTUnwrap(draft.duplicate(items[2]))
        draft.set(copy, to: .number("4"))
        draft.remove(items[0])
        XCTAssertEqual(try draft.value().objectValue?["list"], [2, 3, 4])
        let inserted = try XCTUnwrap(draft.addItem(to: list.id, at: 0, type: .null))
        XCTAssertEqual(draft.node(inserted)?.type, .null)
        let settingsCopy = try XCTUnwrap(draft.duplicate(second))
        XCTAssertEqual(draft.root.key(of: settingsCopy), "settings copy")
        XCTAssertEqual(
            try draft.value().compactJSONText, #"{"key":"","list":[null,2,3,4],"settings":{},"settings copy":{}}"#)
        // A duplicate copies what is there, problems included: text that is no number yet stays that text.
        draft.set(copy, to: .number("4,5"))
        let copyOfCopy = try XCTUnwrap(draft.duplicate(copy))
        XCTAssertEqual(draft.node(copyOfCopy)?.content, .number("4,5"))
        XCTAssertEqual(draft.problems.count, 2)
    }

    func testTextModeNamesLineAndColumnOfTheError() throws {
        var draft = JSONDraft(["a": 1], fixedRootType: .object)
        XCTAssertEqual(draft.text, "{\n  \"a\": 1\n}")
        XCTAssertThrowsError(try draft.replace(withText: "{\n  \"a\": 1,\n  \"b\": tru\n}")) { error in
            let problem = error as? JSONTextProblem
            XCTAssertEqual(problem?.line, 3)
            XCTAssertEqual(problem?.column, 11, "the first character that differs from true")
            XCTAssertEqual(problem?.characterOffset, 22)
            XCTAssertEqual(problem?.description, "Line 3, column 11: expected \"true\"")
        }
        // A repeated name is refused at the second one (the wire would silently keep the last).
        XCTAssertThrowsError(try draft.replace(withText: "{\"é\": 1, \"é\": 2}")) { error in
            XCTAssertEqual((error as? JSONTextProblem)?.description, "Line 1, column 10: the name \"é\" is repeated")
        }
        XCTAssertThrowsError(try draft.replace(withText: "[1]")) { error in
            XCTAssertEqual((error as? JSONTextProblem)?.message, "The value must be an object")
        }
        XCTAssertEqual(try draft.value(), ["a": 1], "a refused text changes nothing")
        try draft.replace(withText: "{\"b\": [true, \"x\"]}")
        XCTAssertEqual(try draft.value(), ["b": [true, "x"]])
    }

    func testTypingIsOneUndoStep() throws {
        var history = EditHistory(JSONDraft(["name": "a"]))
        let name = try XCTUnwrap(member("name", of: history.current))
        for text in ["ab", "abc", "abcd"] { history.edit(typing: "value-\(name.id)") { $0.set(name.id, to: .string(text)) } }
        history.edit { $0.rename(name.id, to: "title") }
        history.undo()
        XCTAssertEqual(try history.current.value(), ["name": "abcd"])
        history.undo()
        XCTAssertEqual(try history.current.value(), ["name": "a"])
        XCTAssertFalse(history.canUndo)
        history.redo()
        history.redo()
        XCTAssertEqual(try history.current.value(), ["title": "abcd"])
    }

    private func member(_ key: String, of draft: JSONDraft) -> JSONDraftNode? {
        guard case .object(let members) = draft.root.content else { return nil }
        return members.first { $0.key == key }?.value
    }
}

/// Random JSON through the structured editor's model comes back byte-identical: read as a
/// draft, written as text and read back, edited and the edit undone (type changes there and
/// back, a duplicate removed, a move and its reverse). Values are decoded from a list of random
/// numbers, so a failing value shrinks with its list to a small one.
@Suite struct JSONDraftPropertyTests {
    static let values = Gen.uint64(in: 0...UInt64.max).array(of: 0...120).map { RandomJSON.decode($0) }

    @Test func valuesComeBackByteIdentical() async {
        await propertyCheck(count: 500, input: Self.values) { value in
            let bytes = value.compactJSONText
            let draft = JSONDraft(value)
            #expect((try? draft.value().compactJSONText) == bytes)
            var viaText = draft
            #expect((try? viaText.replace(withText: draft.text)) != nil, "\(draft.text)")
            #expect((try? viaText.value().compactJSONText) == bytes)
        }
    }

    @Test func editsAndTheirReversesChangeNoByte() async {
        await propertyCheck(count: 500, input: Self.values) { value in
            let bytes = value.compactJSONText
            var draft = JSONDraft(value)
            for node in Self.allNodes(draft.root) {
                switch node.content {
                case .string(let text) where JSONDraft.isNumber(text):
                    draft.changeType(of: node.id, to: .number)
                    draft.changeType(of: node.id, to: .string)
                case .number:
                    draft.changeType(of: node.id, to: .string)
                    draft.changeType(of: node.id, to: .number)
                case .bool:
                    draft.changeType(of: node.id, to: .string)
                    draft.changeType(of: node.id, to: .boolean)
                default: break
                }
                guard draft.root.parent(of: node.id) != nil else { continue }
                if let copy = draft.duplicate(node.id) { draft.remove(copy) }
                let index = draft.root.parent(of: node.id)?.1
                draft.move(node.id, by: 1)
                if draft.root.parent(of: node.id)?.1 != index { draft.move(node.id, by: -1) }
                if let key = draft.root.key(of: node.id) { draft.rename(node.id, to: key) }
            }
            #expect((try? draft.value().compactJSONText) == bytes)
        }
    }

    private static func allNodes(_ node: JSONDraftNode) -> [JSONDraftNode] {
        [node] + node.children.flatMap(allNodes)
    }
}

/// Decodes a JSON value from random numbers: each number picks a kind and its content; strings
/// and numbers lean towards the ones editors get wrong ("null", "+1", "123.0", large integers,
/// escapes, non-ASCII).
enum RandomJSON {
    static func decode(_ numbers: [UInt64]) -> JSONValue {
        var stream = numbers[...]
        return value(from: &stream, depth: 0)
    }

    private static let strings = [
        "", "null", "+1", "123.0", "true", "0x10", "1e3", " ", "a\"b", "back\\slash", "line\nbreak", "tab\t", "é", "日本語", "🎉",
        "\u{1}", "</script>", "key copy",
    ]

    private static func value(from stream: inout ArraySlice<UInt64>, depth: Int) -> JSONValue {
        guard let number = stream.popFirst() else { return .null }
        let choice = depth > 6 ? number % 4 : number % 6
        let detail = number >> 8
        switch choice {
        case 0: return detail % 2 == 0 ? .null : .bool(detail % 4 == 1)
        case 1:
            switch detail % 4 {
            case 0: return .number(Double(Int64(truncatingIfNeeded: detail) % 9_007_199_254_740_992))
            case 1: return .number(Double(detail % 100_000) / 100)
            case 2:
                let bits = Double(bitPattern: detail)
                return .number(bits.isFinite ? bits : 1.5e300)
            default: return .number(-Double(detail % 1_000))
            }
        case 2, 3:
            let base = strings[Int(detail % UInt64(strings.count))]
            return .string(detail % 3 == 0 ? base + String(detail % 97) : base)
        case 4:
            let count = Int(detail % 5)
            return .array((0..<count).map { _ in value(from: &stream, depth: depth + 1) })
        default:
            let count = Int(detail % 5)
            var members: [String: JSONValue] = [:]
            for index in 0..<count {
                let key = strings[Int((detail >> UInt64(index * 5)) % UInt64(strings.count))] + (index % 2 == 0 ? "" : "\(index)")
                members[key] = value(from: &stream, depth: depth + 1)
            }
            return .object(members)
        }
    }
}
