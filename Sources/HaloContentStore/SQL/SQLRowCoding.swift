/// Codable values to and from rows: a property `createdAt` is the column `created_at`, so a
/// record type names its columns once, by its properties. Properties are scalars
/// (`SQLValueConvertible`: integers, reals, booleans, strings, bytes, and optionals of them).
public enum SQLRowCoding {
    /// `createdAt` → `created_at`, `devicesJson` → `devices_json`.
    public static func columnName(_ property: String) -> String {
        var name = ""
        for character in property {
            if character.isUppercase {
                if !name.isEmpty { name.append("_") }
                name.append(contentsOf: character.lowercased())
            } else {
                name.append(character)
            }
        }
        return name
    }

    /// `value`'s properties as (column, value) pairs, in declaration order.
    public static func columns(of value: some Encodable) throws -> [(column: String, value: SQLValue)] {
        let encoder = RowEncoder()
        try value.encode(to: encoder)
        return encoder.storage.columns
    }

    /// A `T` from `row`'s columns.
    public static func decode<T: Decodable>(_ type: T.Type, from row: SQLRow) throws -> T {
        try T(from: RowDecoder(row: row))
    }
}

// MARK: Encoding

private final class RowStorage {
    var columns: [(column: String, value: SQLValue)] = []
}

private struct RowEncoder: Encoder {
    let storage = RowStorage()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RowKeyedEncoder<Key>(storage: storage))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { fatalError("A row is keyed: encode a struct") }
    func singleValueContainer() -> any SingleValueEncodingContainer { fatalError("A row is keyed: encode a struct") }
}

private struct RowKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let storage: RowStorage
    var codingPath: [any CodingKey] { [] }

    func encodeNil(forKey key: Key) throws { append(.null, forKey: key) }

    private func append(_ value: SQLValue, forKey key: Key) {
        storage.columns.append((SQLRowCoding.columnName(key.stringValue), value))
    }

    // Every scalar type of Encodable goes through the one generic path.
    func encode(_ value: Bool, forKey key: Key) throws { try encodeScalar(value, forKey: key) }
    func encode(_ value: String, forKey key: Key) throws { try encodeScalar(value, forKey: key) }
    func encode(_ value: Double, forKey key: Key) throws { try encodeScalar(value, forKey: key) }
    func encode(_ value: Float, forKey key: Key) throws { try encodeScalar(value, forKey: key) }
    func encode(_ value: Int, forKey key: Key) throws { try encodeScalar(value, forKey: key) }
    func encode(_ value: Int8, forKey key: Key) throws { try encodeScalar(value, forKey: key) }
    func encode(_ value: Int16, forKey key: Key) throws { try encodeScalar(value, forKey: key) }
    func encode(_ value: Int32, forKey key: Key) throws { try encodeScalar(value, forKey: key) }
    func encode(_ value: Int64, forKey key: Key) throws { try encodeScalar(value, forKey: key) }
    func encode(_ value: UInt, forKey key: Key) throws { try encodeScalar(value, forKey: key) }
    func encode(_ value: UInt8, forKey key: Key) throws { try encodeScalar(value, forKey: key) }
    func encode(_ value: UInt16, forKey key: Key) throws { try encodeScalar(value, forKey: key) }
    func encode(_ value: UInt32, forKey key: Key) throws { try encodeScalar(value, forKey: key) }
    func encode(_ value: UInt64, forKey key: Key) throws { try encodeScalar(value, forKey: key) }

    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encodeScalar(value, forKey: key) }

    private func encodeScalar<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard let scalar = value as? any SQLValueConvertible else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [key], debugDescription: "\(T.self) is not a column type (SQLValueConvertible)"))
        }
        append(scalar.sqlValue, forKey: key)
    }

    // Synthesized Encodable skips nil optionals with encodeIfPresent; a row needs their NULL.
    func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    func encodeIfPresent(_ value: String?, forKey key: Key) throws { append(value.sqlValue, forKey: key) }
    func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { append(value.sqlValue, forKey: key) }
    func encodeIfPresent(_ value: Int?, forKey key: Key) throws { append(value.sqlValue, forKey: key) }
    func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { append(value.sqlValue, forKey: key) }
    func encodeIfPresent(_ value: Double?, forKey key: Key) throws { append(value.sqlValue, forKey: key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        fatalError("A row has no nested values")
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { fatalError("A row has no nested values") }
    func superEncoder() -> any Encoder { fatalError("A row has no nested values") }
    func superEncoder(forKey key: Key) -> any Encoder { fatalError("A row has no nested values") }
}

// MARK: Decoding

private struct RowDecoder: Decoder {
    let row: SQLRow
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowKeyedDecoder<Key>(row: row))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(SQLRow.self, .init(codingPath: [], debugDescription: "A row is keyed"))
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(SQLRow.self, .init(codingPath: [], debugDescription: "A row is keyed"))
    }
}

private struct RowKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: SQLRow
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { row.columns.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { row.value(SQLRowCoding.columnName(key.stringValue)) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        row.value(SQLRowCoding.columnName(key.stringValue)) == .null
    }

    // Every scalar type of Decodable goes through the one generic path.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeScalar(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeScalar(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeScalar(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeScalar(type, forKey: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decodeScalar(type, forKey: key) }

    private func decodeScalar<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let scalar = T.self as? any SQLValueConvertible.Type else {
            throw DecodingError.typeMismatch(T.self, .init(codingPath: [key], debugDescription: "\(T.self) is not a column type"))
        }
        let column = SQLRowCoding.columnName(key.stringValue)
        guard let value = row.value(column) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "No column \(column)"))
        }
        guard let decoded = scalar.init(sqlValue: value) as? T else {
            throw DecodingError.typeMismatch(T.self, .init(codingPath: [key], debugDescription: "Column \(column) holds \(value)"))
        }
        return decoded
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(SQLRow.self, .init(codingPath: [key], debugDescription: "A row has no nested values"))
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(SQLRow.self, .init(codingPath: [key], debugDescription: "A row has no nested values"))
    }
    func superDecoder() throws -> any Decoder { RowDecoder(row: row) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(row: row) }
}
