import HaloContentStore

/// Seeded data helpers over SplitMix64, so `seed --seed S` always produces the same data.
struct SeedRandom: RandomNumberGenerator {
    private var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(seed: seed &+ 0x9E37_79B9_7F4A_7C15) }

    mutating func next() -> UInt64 { generator.next() }

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
