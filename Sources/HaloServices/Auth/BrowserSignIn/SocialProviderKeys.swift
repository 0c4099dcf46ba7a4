import Foundation

/// The few values a person sets to make browser sign-in work with their own provider accounts:
/// the configuration file's `GOOGLE_CLIENT_ID`, `GOOGLE_DISCOVERY_URL` and `FACEBOOK_APP_ID`, and
/// the same three in HaloDesk's Preferences. One place turns them into providers and checks them.
/// Client secrets are not among them: they live in the keyring (`SocialProvider.secretKeyring`).
public struct SocialProviderKeys: Codable, Equatable, Sendable {
    /// Makes the Google preset (or, with `googleDiscoveryURL`, any OpenID Connect provider).
    public var googleClientId: String?
    /// An OpenID Connect issuer or its discovery document; replaces Google's endpoints.
    public var googleDiscoveryURL: String?
    /// Makes the Facebook preset.
    public var facebookAppId: String?

    public init(googleClientId: String? = nil, googleDiscoveryURL: String? = nil, facebookAppId: String? = nil) {
        self.googleClientId = googleClientId
        self.googleDiscoveryURL = googleDiscoveryURL
        self.facebookAppId = facebookAppId
    }

    /// Which value a problem is about, so a form can show it at that field.
    public enum Field: Sendable, CaseIterable {
        case googleClientId, googleDiscoveryURL, facebookAppId
    }

    /// What is wrong with each value, in words; empty when the keys make valid providers.
    /// Blank values count as unset.
    public var problems: [Field: String] {
        var problems: [Field: String] = [:]
        for (field, value, name) in [
            (Field.googleClientId, googleClientId, "A client ID"), (.facebookAppId, facebookAppId, "An app ID"),
        ] {
            if let value = Self.trimmed(value), value.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }) {
                problems[field] = "\(name) has no spaces."
            }
        }
        if let discovery = Self.trimmed(googleDiscoveryURL) {
            if Self.discoveryDocument(discovery) == nil {
                problems[.googleDiscoveryURL] =
                    "Enter the provider's https address (http only on this computer), e.g. https://accounts.example.com."
            } else if Self.trimmed(googleClientId) == nil {
                problems[.googleDiscoveryURL] = "A provider address needs its client ID too."
            }
        }
        return problems
    }

    /// The providers these keys make, by network. Throws the first problem, naming `source`.
    public func providers(source: String) throws(HaloError) -> [Network: SocialProvider] {
        if let (field, problem) = problems.min(by: { "\($0.key)" < "\($1.key)" }) {
            throw .configuration(message: "\(Self.key(for: field)) in \(source): \(problem)")
        }
        var providers: [Network: SocialProvider] = [:]
        if let clientId = Self.trimmed(googleClientId) {
            var google = SocialProvider.google(clientId: clientId)
            if let discovery = Self.trimmed(googleDiscoveryURL).flatMap(Self.discoveryDocument) {
                google.discoveryURL = discovery
                google.authorizationEndpoint = nil
                google.tokenEndpoint = nil
            }
            providers[.google] = google
        }
        if let appId = Self.trimmed(facebookAppId) { providers[.facebook] = .facebook(appId: appId) }
        return providers
    }

    /// The configuration file's name for a field.
    public static func key(for field: Field) -> String {
        switch field {
        case .googleClientId: "GOOGLE_CLIENT_ID"
        case .googleDiscoveryURL: "GOOGLE_DISCOVERY_URL"
        case .facebookAppId: "FACEBOOK_APP_ID"
        }
    }

    private static func trimmed(_ value: String?) -> String? {
        guard let value = value?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    /// The discovery document of an issuer or of a discovery address: https, or http on a loopback
    /// address (a provider on this computer, RFC 8252's own exception for loopback).
    static func discoveryDocument(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            scheme == "https" || (scheme == "http" && ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()))
        else { return nil }
        let suffix = ".well-known/openid-configuration"
        return url.path.hasSuffix(suffix) ? url : url.appendingPathComponent(suffix)
    }
}
