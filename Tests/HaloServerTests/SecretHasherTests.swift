import XCTest

@testable import HaloServer

/// The PBKDF2 cost setting (`HALO_PASSWORD_HASH_ROUNDS`, used by `make check`) and the promise that
/// makes it safe to change: a stored hash is checked with the rounds it names.
final class SecretHasherTests: XCTestCase {
    func testRoundsComeFromTheEnvironmentWithinBounds() {
        let name = SecretHasher.roundsVariable
        XCTAssertEqual(SecretHasher.configuredRounds([:]), 210_000)
        XCTAssertEqual(SecretHasher.configuredRounds([name: "5000"]), 5_000)
        XCTAssertEqual(SecretHasher.configuredRounds([name: "1"]), SecretHasher.minimumRounds)
        XCTAssertEqual(SecretHasher.configuredRounds([name: "99999999999"]), 2_100_000)
        XCTAssertEqual(SecretHasher.configuredRounds([name: "fast"]), 210_000)
        XCTAssertEqual(SecretHasher.configuredRounds([name: ""]), 210_000)
    }

    func testAHashIsCheckedWithTheRoundsItWasMadeWith() throws {
        let cheap = try SecretHasher.hashPassword("correct horse", rounds: 1_000)
        XCTAssertTrue(cheap.hasPrefix("pbkdf2-sha256$1000$"), cheap)
        let costly = try SecretHasher.hashPassword("correct horse", rounds: 20_000)
        XCTAssertTrue(costly.hasPrefix("pbkdf2-sha256$20000$"), costly)
        for stored in [cheap, costly] {
            XCTAssertTrue(SecretHasher.verifyPassword("correct horse", against: stored))
            XCTAssertFalse(SecretHasher.verifyPassword("correct horse ", against: stored))
        }
        // The same password and rounds with another salt is another hash.
        XCTAssertNotEqual(cheap, try SecretHasher.hashPassword("correct horse", rounds: 1_000))
        XCTAssertFalse(SecretHasher.verifyPassword("correct horse", against: SecretHasher.dummyHash))
    }
}
