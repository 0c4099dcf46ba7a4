/// The operands of one `and`, with those that can be answered in one pass over a field's values
/// grouped together (both back ends group the same way):
/// - numeric range comparisons on one field (`price >= 10 and price <= 500`): one range
///   instead of two large ones;
/// - several `like`s on one field (`description like "fjord" and description like "quartz"`):
///   one pass over its strings.
/// Grouping is exact only when every instance holds at most one value in that field (for a
/// list, "some element ≥ 10 and some element ≤ 500" may be two different elements), so it is
/// done only for properties whose fields never stored several values (`content_field.multi`).
struct AndOperands {
    struct Range {
        let property: String
        let bounds: [(operation: FilterOperation, value: Double)]
    }

    struct Likes {
        let property: String
        let texts: [String]
    }

    private(set) var ranges: [Range] = []
    private(set) var likes: [Likes] = []
    /// Everything else, in the order given.
    private(set) var rest: [FilterNode] = []

    /// Nothing grouped (metadata comparisons run on indexed columns already).
    init(_ operands: [FilterNode]) { rest = operands }

    /// Groups `values` comparisons; `holdsOneValue(property)` says whether a property's fields
    /// never stored several values.
    init(_ operands: [FilterNode], holdsOneValue: (String) throws -> Bool) throws {
        var bounds: [String: [(operation: FilterOperation, value: Double)]] = [:]
        var texts: [String: [String]] = [:]
        for operand in operands {
            if case .comparison(let c) = operand, c.operation.isRange, let n = Self.numericOperand(c.value) {
                bounds[c.property, default: []].append((c.operation, n))
            } else if case .comparison(let c) = operand, c.operation == .like, let text = c.value.stringValue {
                texts[c.property, default: []].append(text)
            } else {
                rest.append(operand)
            }
        }
        for (property, list) in bounds.sorted(by: { $0.key < $1.key }) {
            if list.count > 1, try holdsOneValue(property) {
                ranges.append(Range(property: property, bounds: list))
            } else {
                rest += list.map { .compare(property, $0.operation, .number($0.value)) }
            }
        }
        for (property, list) in texts.sorted(by: { $0.key < $1.key }) {
            if list.count > 1, try holdsOneValue(property) {
                likes.append(Likes(property: property, texts: list))
            } else {
                rest += list.map { .compare(property, .like, .string($0)) }
            }
        }
    }

    /// The number a range comparison orders by, when it orders numerically.
    static func numericOperand(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let n): return n
        case .string(let s): return FilterEvaluator.number(fromText: s)
        default: return nil
        }
    }
}
