import Foundation
import HaloServices

/// What HaloDesk remembers between runs (`$XDG_CONFIG_HOME/halo-desk/settings.json`).
/// Secrets are never stored here: client secrets live in the keyring.
struct AppSettings: Codable, Equatable {
    enum WorkspaceChoice: String, Codable {
        case local
        case remote
    }

    /// nil until the user picked one on the welcome page.
    var workspace: WorkspaceChoice?
    /// Remote server: an environment name (int, qa, stage, prod) or a base URL.
    var environment: String?
    var clientId: String?
    var numberOfRetries: Int = 1
    var logLevel: String = "warning"
    var disableSSLPinning = false
    /// The last email used to sign in (prefilled next time).
    var lastEmail: String?
    /// The user's own Google/Facebook registrations for browser sign-in on remote servers
    /// (Preferences); they take precedence over Halo.plist's. Their client secret is in the keyring.
    var signInProviders: SocialProviderKeys?
    /// Keep running after the window is closed, to go on receiving notifications (Preferences;
    /// off when absent, as in files written before it existed).
    var runInBackground: Bool?

    static var file: URL { XDGDirectories.config.appendingPathComponent("settings.json") }

    /// Loads the settings; a missing file gives defaults, a damaged one is set aside (and reported)
    /// rather than silently overwritten.
    static func load(from url: URL = file) -> (settings: AppSettings, problem: String?) {
        guard let data = try? Data(contentsOf: url) else { return (AppSettings(), nil) }
        do {
            return (try JSONDecoder().decode(AppSettings.self, from: data), nil)
        } catch {
            let aside = url.appendingPathExtension("damaged")
            try? FileManager.default.removeItem(at: aside)
            try? FileManager.default.moveItem(at: url, to: aside)
            return (AppSettings(), "Your settings could not be read and were reset (the old file is \(aside.lastPathComponent)).")
        }
    }

    /// Writes atomically so a crash never leaves half a file.
    func save(to url: URL = file) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}
