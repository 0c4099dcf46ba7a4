/// UTF-8 validation that says where the text goes wrong (Swift's own validation only says
/// whether). Used by the server's request checks (`JSONValue(parsingRequest:)`, form bodies and
/// percent-decoded query and form values).
public enum UTF8Check {
    /// The offset of the first byte in `range` of `bytes` that starts no well-formed UTF-8
    /// sequence (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF, no
    /// truncated sequence), or nil when the range is well-formed.
    public static func firstInvalidOffset(in bytes: [UInt8], _ range: Range<Int>) -> Int? {
        var index = range.lowerBound
        let end = range.upperBound
        while index < end {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var secondRange: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                secondRange = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                secondRange = 0x80...0x9F
            case 0xF0:
                length = 4
                secondRange = 0x90...0xBF
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                secondRange = 0x80...0x8F
            default: return index
            }
            guard index + length <= end, secondRange.contains(bytes[index + 1]) else { return index }
            for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return index }
            index += length
        }
        return nil
    }

    /// As `firstInvalidOffset(in:_:)` over all of `bytes`.
    public static func firstInvalidOffset(in bytes: [UInt8]) -> Int? {
        firstInvalidOffset(in: bytes, 0..<bytes.count)
    }
}
