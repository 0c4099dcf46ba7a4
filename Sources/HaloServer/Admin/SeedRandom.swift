/// SplitMix64: a tiny deterministic generator, so `seed --seed S` always produces the same data.
struct SeedRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }

    /// A deterministic 24-hex id.
    mutating func objectID() -> String {
        String(format: "%08x%016llx", UInt32(truncatingIfNeeded: next()), next())
    }

    static let words = [
        "amber", "abbey", "falcon", "harbor", "cobalt", "meadow", "summit", "lantern", "cabin", "river", "granite",
        "willow", "ember", "fabric", "glacier", "orchid", "pebble", "quartz", "saffron", "timber", "velvet", "zephyr",
        "aurora", "basalt", "canyon", "dune", "estuary", "fjord", "grove", "heath", "island", "jasper", "kelp",
        "lagoon", "marble", "nectar", "oasis", "prairie", "reef", "sable", "tundra", "umber", "valley", "wharf",
    ]

    mutating func words(_ count: Int) -> String {
        (0..<count).map { _ in pick(Self.words) }.joined(separator: " ")
    }

    mutating func title(_ count: Int) -> String {
        (0..<count).map { _ in pick(Self.words).capitalized }.joined(separator: " ")
    }
}
