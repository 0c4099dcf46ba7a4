import Foundation

/// Converts the seed API's `Any` values (instance values, filter values) to and from `JSONValue`.
///
/// The iOS SDK took `Any?` in `setValue(key:value:)` and the filter functions; this SDK converts
/// at the boundary so every model stays `Sendable`. Conversion is total: a value of a type JSON
/// cannot express is kept as its textual description rather than dropped.
public enum AnyJSONConversion {
    /// The JSON for a Swift value. `Date` becomes epoch milliseconds, `URL` its absolute string,
    /// `nil`/`NSNull` JSON null; arrays and string-keyed dictionaries convert element-wise.
    public static func json(from value: Any?) -> JSONValue {
        guard let value else { return .null }
        switch value {
        case let json as JSONValue: return json
        case is NSNull: return .null
        case let number as NSNumber:
            // Foundation containers (JSONSerialization, plists) hold booleans as NSNumber "c".
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            return number.doubleValue.isFinite ? .number(number.doubleValue) : .null
        case let bool as Bool: return .bool(bool)
        case let string as String: return .string(string)
        case let substring as Substring: return .string(String(substring))
        case let int as Int: return .number(Double(int))
        case let int as Int8: return .number(Double(int))
        case let int as Int16: return .number(Double(int))
        case let int as Int32: return .number(Double(int))
        case let int as Int64: return .number(Double(int))
        case let int as UInt: return .number(Double(int))
        case let int as UInt8: return .number(Double(int))
        case let int as UInt16: return .number(Double(int))
        case let int as UInt32: return .number(Double(int))
        case let int as UInt64: return .number(Double(int))
        case let double as Double: return double.isFinite ? .number(double) : .null
        case let float as Float: return float.isFinite ? .number(Double(float)) : .null
        case let decimal as Decimal: return .number(NSDecimalNumber(decimal: decimal).doubleValue)
        case let date as Date: return HaloTimestamp.json(date)
        case let url as URL: return .string(url.absoluteString)
        case let tag as Tag: return tag.wireJSON
        case let instance as ContentInstance: return instance.fullJSON
        case let optional as OptionalProtocol: return optional.wrappedJSON
        case let array as [Any?]: return .array(array.map { json(from: $0) })
        case let array as [Any]: return .array(array.map { json(from: $0) })
        case let dictionary as [String: Any?]: return .object(dictionary.mapValues { json(from: $0) })
        case let dictionary as [String: Any]: return .object(dictionary.mapValues { json(from: $0) })
        case let dictionary as [AnyHashable: Any]:
            var object: [String: JSONValue] = [:]
            for (key, element) in dictionary { object[String(describing: key.base)] = json(from: element) }
            return .object(object)
        default: return .string(String(describing: value))
        }
    }

    /// The Foundation value for JSON (`String`, `Double`/`Int`, `Bool`, `[Any?]`, `[String: Any?]`,
    /// `nil` for null), as the seed's `[String: Any]` accessors returned. Whole numbers become `Int`.
    public static func any(from json: JSONValue) -> Any? {
        switch json {
        case .null: return nil
        case .bool(let b): return b
        case .string(let s): return s
        case .number(let n):
            if let whole = Int(exactly: n) { return whole }
            return n
        case .array(let items): return items.map { any(from: $0) }
        case .object(let fields): return fields.mapValues { any(from: $0) }
        }
    }
}

/// Lets `json(from:)` see through an `Optional` that arrived wrapped in `Any`.
private protocol OptionalProtocol {
    var wrappedJSON: JSONValue { get }
}

extension Optional: OptionalProtocol {
    fileprivate var wrappedJSON: JSONValue {
        switch self {
        case .none: return .null
        case .some(let wrapped): return AnyJSONConversion.json(from: wrapped)
        }
    }
}
