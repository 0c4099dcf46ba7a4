/// A HALO locale code such as `en-US` (PROTOCOL §11.1; the iOS SDK's `Halo.Locale`).
///
/// Named `HaloLocale` so it never shadows `Foundation.Locale`. Any code can be written (the
/// server decides what it serves); `isKnown` tells whether it is one of the 443 codes the SDKs knew.
public struct HaloLocale: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    /// A locale only when `code` is one of `knownCodes`.
    public init?(knownCode code: String) {
        guard Self.knownCodes.contains(code) else { return nil }
        self.rawValue = code
    }

    public var description: String { rawValue }
    /// Whether the code is one the HALO SDKs listed.
    public var isKnown: Bool { Self.knownCodes.contains(rawValue) }

    /// Ours: no locale at all. A sync sent without `locale` carries every locale's text of a
    /// localized field (as search does), which is what an offline copy that can be edited needs:
    /// text synced in one locale cannot be sent back as the field's value.
    public static let allLocales: HaloLocale = ""
    /// The iOS SDK's default for sync (`en-US`, PROTOCOL §14.1).
    public static let englishUnitedStates: HaloLocale = "en-US"
    public static let englishUnitedKingdom: HaloLocale = "en-GB"
    public static let spanishSpain: HaloLocale = "es-ES"
    public static let dutchNetherlands: HaloLocale = "nl-NL"
    public static let germanGermany: HaloLocale = "de-DE"
    public static let frenchFrance: HaloLocale = "fr-FR"
    public static let italianItaly: HaloLocale = "it-IT"
}
