import Foundation
import HaloContentStore

/// The fuzzer's choices over SplitMix64: the same sequence on every platform for a given seed.
struct FuzzRandom {
    private var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { generator.next() }

    /// 0..<bound (bound > 0).
    mutating func int(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }

    mutating func int(in range: ClosedRange<Int>) -> Int { range.lowerBound + int(range.count) }

    mutating func chance(_ probability: Double) -> Bool { Double(next() % 1_000_000) / 1_000_000 < probability }

    mutating func pick<T>(_ items: [T]) -> T { items[int(items.count)] }
}

/// A JSON tree that can also hold what a JSON library would refuse to produce: duplicated and
/// empty keys (objects are ordered pairs), raw number literals of any size, raw string contents
/// (`\ud800`), and raw text fragments (garbage).
indirect enum FuzzJSON: Sendable {
    case null
    case bool(Bool)
    /// A number literal written as is ("1e300", "9223372036854775808", "-0").
    case number(String)
    case string(String)
    /// Written between quotes without escaping (for escapes such as `\ud800`).
    case rawString(String)
    case array([FuzzJSON])
    case object([(String, FuzzJSON)])
    /// Written as is: not JSON at all, or JSON of our choosing (`NaN`, `[1,]`).
    case raw(String)

    static func int(_ value: Int64) -> FuzzJSON { .number(String(value)) }

    func render() -> String {
        var out = ""
        render(into: &out)
        return out
    }

    func render(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let literal): out += literal
        case .string(let text): Self.quote(text, into: &out)
        case .rawString(let text): out += "\"" + text + "\""
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.render(into: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (index, pair) in pairs.enumerated() {
                if index > 0 { out += "," }
                Self.quote(pair.0, into: &out)
                out += ":"
                pair.1.render(into: &out)
            }
            out += "}"
        case .raw(let text): out += text
        }
    }

    static func quote(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// The value as a form field or query value: strings as they are, anything else as its JSON text.
    var formText: String {
        switch self {
        case .string(let text): return text
        case .number(let literal): return literal
        case .bool(let value): return value ? "true" : "false"
        case .null: return ""
        default: return render()
        }
    }

    subscript(key: String) -> FuzzJSON? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    /// Number of nodes (for picking one uniformly).
    var nodeCount: Int {
        switch self {
        case .array(let items): return 1 + items.reduce(0) { $0 + $1.nodeCount }
        case .object(let pairs): return 1 + pairs.reduce(0) { $0 + $1.1.nodeCount }
        default: return 1
        }
    }

    /// Applies `change` to the node at pre-order position `index` (0 = the root).
    func transforming(at index: Int, _ change: (FuzzJSON) -> FuzzJSON) -> FuzzJSON {
        var counter = index
        return transformed(&counter, change)
    }

    private func transformed(_ counter: inout Int, _ change: (FuzzJSON) -> FuzzJSON) -> FuzzJSON {
        if counter == 0 {
            counter = -1
            return change(self)
        }
        counter -= 1
        switch self {
        case .array(let items):
            var result: [FuzzJSON] = []
            for item in items {
                result.append(counter >= 0 ? item.transformed(&counter, change) : item)
            }
            return .array(result)
        case .object(let pairs):
            var result: [(String, FuzzJSON)] = []
            for (key, value) in pairs {
                result.append((key, counter >= 0 ? value.transformed(&counter, change) : value))
            }
            return .object(result)
        default:
            return self
        }
    }
}

/// The values fuzzing is made of.
enum FuzzValues {
    static let hugeNumbers = [
        "1e300", "-1e300", "9.3e18", "-9.3e18", "-1e308", "1.7976931348623157e308", "9223372036854775807",
        "9223372036854775808", "-9223372036854775809", "18446744073709551616", "999999999999", "1e19", "4.9e-324",
        "1e-320", "123456789012345678901234567890", "2147483648", "-2147483649", "1e15", "0.5", "-0", "-1", "0",
        "1.5", "3.0000000000000001", "1E400", "-0.0e-0",
    ]

    static let nanStrings = [
        "NaN", "nan", "Infinity", "-Infinity", "inf", "1e300", "9.3e18", "-1e308", "9223372036854775808", "0x10",
        " 12 ", "1_000", "", "-", "+1", "1e", ".5", "5.", "٣", "１２", "null", "true", "[]", "{}",
    ]

    static let odd: [FuzzJSON] = [
        .null, .bool(true), .bool(false), .number("0"), .number("-1"), .string(""), .string("x"), .array([]),
        .object([]), .array([.null]), .object([("", .null)]), .string("null"), .string("0"),
    ]

    static let unicode: [FuzzJSON] = [
        .string("e\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}"), .string("a\u{0}b"), .string("\u{0}"),
        .rawString("\\ud800"), .rawString("\\udc00\\ud800"), .rawString("x\\ud83d"), .rawString("\\u0000"),
        .string("\u{FEFF}bom"), .string("\u{202E}rtl"), .string("👩‍👩‍👧‍👦"), .string("ﷺ"), .string("\u{10FFFF}"),
        .string("%s%n%x"), .string("'; DROP TABLE server_user; --"), .string("../../etc/passwd"),
        .string("\u{7F}\u{1}\u{1F}"), .string(String(repeating: "\u{301}", count: 5000)), .rawString("\\u"),
        .rawString("\\x41"), .string("\\"), .string("\""),
    ]

    static let typeSwaps: [FuzzJSON] =
        odd + [
            .number("1e300"), .number("42"), .string("1e300"), .string("true"), .array([.string("a"), .number("1")]),
            .object([("a", .number("1"))]),
        ]

    /// A string of `count` copies of `unit`.
    static func long(_ unit: String, _ count: Int) -> String { String(repeating: unit, count: count) }

    static func randomText(_ random: inout FuzzRandom) -> String {
        switch random.int(8) {
        case 0: return long("a", 60_000)
        case 1: return long("é", random.int(in: 1...3000))
        case 2: return String((0..<random.int(in: 0...40)).map { _ in Character(UnicodeScalar(UInt8(random.int(in: 32...126)))) })
        case 3: return random.pick(["", " ", "x", "\t", "a b", "null", "undefined", "0", "-1", "true"])
        case 4: return long("%_", random.int(in: 1...30_000))
        case 5: return random.pick(nanStrings)
        case 6: return String(repeating: "𝔘", count: random.int(in: 1...500))
        default: return "fuzz-\(random.int(1_000_000))"
        }
    }

    static func nested(depth: Int, object: Bool, leaf: FuzzJSON = .number("1")) -> FuzzJSON {
        // Rendered as text: a recursive enum this deep would be slow to build and to render.
        let open = object ? String(repeating: "{\"a\":", count: depth) : String(repeating: "[", count: depth)
        let close = String(repeating: object ? "}" : "]", count: depth)
        return .raw(open + leaf.render() + close)
    }
}

/// Random changes to a JSON body.
enum FuzzMutator {
    static func mutate(_ value: FuzzJSON, _ random: inout FuzzRandom, notes: inout [String]) -> FuzzJSON {
        let index = random.int(value.nodeCount)
        var note = ""
        let result = value.transforming(at: index) { node in
            let (changed, what) = mutateNode(node, &random)
            note = what
            return changed
        }
        notes.append("node \(index): \(note)")
        return result
    }

    private static func mutateNode(_ node: FuzzJSON, _ random: inout FuzzRandom) -> (FuzzJSON, String) {
        // Objects get structural changes half of the time.
        if case .object(var pairs) = node, random.chance(0.5) {
            switch random.int(6) {
            case 0 where !pairs.isEmpty:
                let pair = random.pick(pairs)
                pairs.append((pair.0, replacement(&random)))
                return (.object(pairs), "duplicated key \(pair.0)")
            case 1:
                pairs.append(("", replacement(&random)))
                return (.object(pairs), "empty key")
            case 2 where !pairs.isEmpty:
                let removed = pairs.remove(at: random.int(pairs.count))
                return (.object(pairs), "removed \(removed.0)")
            case 3 where !pairs.isEmpty:
                let position = random.int(pairs.count)
                let (value, what) = replacementNoted(&random)
                pairs[position].1 = value
                return (.object(pairs), "\(pairs[position].0) ← \(what)")
            case 4:
                let key = random.pick([
                    "id", "module", "values", "tags", "limit", "page", "sort", "__proto__", "constructor", "\u{0}", "a.b", "$where",
                ])
                pairs.append((key, replacement(&random)))
                return (.object(pairs), "added \(key)")
            default:
                let (value, what) = replacementNoted(&random)
                return (value, "object ← \(what)")
            }
        }
        if case .array(var items) = node, random.chance(0.4) {
            switch random.int(3) {
            case 0:
                items += Array(repeating: items.first ?? .null, count: random.int(in: 1...2000))
                return (.array(items), "array repeated to \(items.count)")
            case 1:
                items.append(replacement(&random))
                return (.array(items), "array + odd item")
            default:
                return (.array([]), "array emptied")
            }
        }
        let (value, what) = replacementNoted(&random)
        return (value, what)
    }

    private static func replacement(_ random: inout FuzzRandom) -> FuzzJSON { replacementNoted(&random).0 }

    static func replacementNoted(_ random: inout FuzzRandom) -> (FuzzJSON, String) {
        switch random.int(10) {
        case 0, 1:
            let literal = random.pick(FuzzValues.hugeNumbers)
            return (.number(literal), literal)
        case 2:
            let swap = random.pick(FuzzValues.typeSwaps)
            return (swap, "type swap \(swap.render().prefix(30))")
        case 3:
            let text = random.pick(FuzzValues.nanStrings)
            return (.string(text), "string \(text.debugDescription)")
        case 4:
            let count = random.pick([1000, 60_000, 200_000])
            return (.string(FuzzValues.long(random.pick(["a", "é", "%", "\\", "\u{301}"]), count)), "long string \(count)")
        case 5:
            let depth = random.pick([10, 100, 500, 511, 512, 513, 2000, 100_000])
            return (FuzzValues.nested(depth: depth, object: random.chance(0.5)), "nested \(depth)")
        case 6:
            let value = random.pick(FuzzValues.unicode)
            return (value, "unicode \(value.render().prefix(20))")
        case 7:
            // Leaves only: a recursive pick here would branch without end.
            let items = (0..<random.int(in: 1...50)).map { _ in
                random.chance(0.5) ? FuzzJSON.number(random.pick(FuzzValues.hugeNumbers)) : random.pick(FuzzValues.typeSwaps)
            }
            return (.array(items), "array of odd values")
        case 8:
            let raw = random.pick(["NaN", "Infinity", "-Infinity", "undefined", "1e", "--1", "[1,]", "{,}", "01", "0x1F", "'x'", "tru"])
            return (.raw(raw), "invalid literal \(raw)")
        default:
            let value = random.pick(FuzzValues.odd)
            return (value, "odd \(value.render())")
        }
    }

    /// Byte-level damage to a rendered body.
    static func damage(_ data: Data, _ random: inout FuzzRandom) -> (Data, String) {
        var bytes = [UInt8](data)
        switch random.int(6) {
        case 0 where !bytes.isEmpty:
            let keep = random.int(bytes.count)
            return (Data(bytes.prefix(keep)), "truncated to \(keep) bytes")
        case 1:
            let garbage = (0..<random.int(in: 1...64)).map { _ in UInt8(random.int(256)) }
            bytes.insert(contentsOf: garbage, at: random.int(bytes.count + 1))
            return (Data(bytes), "\(garbage.count) garbage bytes inserted")
        case 2 where !bytes.isEmpty:
            for _ in 0..<random.int(in: 1...8) { bytes[random.int(bytes.count)] = UInt8(random.int(256)) }
            return (Data(bytes), "bytes flipped")
        case 3:
            return (
                Data(
                    random.pick(["", " ", "null", "[]", "\"x\"", "1e300", "{", "}", "{}{}", "\u{FEFF}{}", "{\"a\":1}garbage", "\u{0}"]).utf8
                ), "replaced by a tiny body"
            )
        case 4:
            return (Data([0xFF, 0xFE]) + data, "UTF-16 BOM prefix")
        default:
            return (data + Data(",{}]".utf8), "trailing junk")
        }
    }
}
