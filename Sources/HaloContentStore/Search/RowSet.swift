/// A set of `content_instance.pk` values as a bitmap.
///
/// Search evaluates each comparison of a filter tree to one of these (one index range scan)
/// and combines them with word-wise AND/OR, which is far cheaper than letting SQLite build and
/// probe temporary B-trees for every operand of a large tree.
struct RowSet: Equatable {
    private(set) var words: [UInt64]

    /// An empty set able to hold keys 0..<capacity.
    init(capacity: Int64) {
        words = Array(repeating: 0, count: Int((max(capacity, 0) + 63) / 64))
    }

    /// Every key from 1 to capacity − 1 (0 is never a SQLite rowid).
    init(filledBelow capacity: Int64) {
        self.init(capacity: capacity)
        for i in words.indices { words[i] = ~0 }
        let extra = words.count * 64 - Int(max(capacity, 0))
        if extra > 0, let last = words.indices.last { words[last] &= ~0 >> UInt64(extra) }
        if !words.isEmpty { words[0] &= ~1 }
    }

    mutating func insert(_ pk: Int64) {
        let word = Int(pk >> 6)
        guard pk >= 0, word < words.count else { return }
        words[word] |= 1 << UInt64(pk & 63)
    }

    func contains(_ pk: Int64) -> Bool {
        let word = Int(pk >> 6)
        guard pk >= 0, word < words.count else { return false }
        return words[word] & (1 << UInt64(pk & 63)) != 0
    }

    mutating func formIntersection(_ other: RowSet) {
        for i in words.indices { words[i] &= other.words[i] }
    }

    mutating func formUnion(_ other: RowSet) {
        for i in words.indices { words[i] |= other.words[i] }
    }

    /// Everything in `universe` that is not in self.
    func complement(in universe: RowSet) -> RowSet {
        var result = universe
        for i in result.words.indices { result.words[i] &= ~words[i] }
        return result
    }

    var count: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }
    var isEmpty: Bool { words.allSatisfy { $0 == 0 } }

    /// The members in increasing order.
    var members: [Int64] {
        var result: [Int64] = []
        result.reserveCapacity(count)
        for (index, var word) in words.enumerated() where word != 0 {
            while word != 0 {
                let bit = word.trailingZeroBitCount
                result.append(Int64(index * 64 + bit))
                word &= word - 1
            }
        }
        return result
    }
}
