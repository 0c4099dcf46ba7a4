import Foundation

/// The XDG base directories the SDK stores its files in, each with a `halo-desk` subfolder.
public enum XDGDirectories {
    /// `$XDG_CONFIG_HOME/halo-desk` (default `~/.config/halo-desk`): `Halo.plist`, certificates.
    public static var config: URL { base("XDG_CONFIG_HOME", fallback: ".config") }
    /// `$XDG_DATA_HOME/halo-desk` (default `~/.local/share/halo-desk`): the stored device, logs.
    public static var data: URL { base("XDG_DATA_HOME", fallback: ".local/share") }
    /// `$XDG_CACHE_HOME/halo-desk` (default `~/.cache/halo-desk`): the offline cache.
    public static var cache: URL { base("XDG_CACHE_HOME", fallback: ".cache") }

    private static func base(_ variable: String, fallback: String) -> URL {
        let environment = ProcessInfo.processInfo.environment
        let root: URL
        if let value = environment[variable], value.hasPrefix("/") {
            root = URL(fileURLWithPath: value, isDirectory: true)
        } else {
            root = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(fallback, isDirectory: true)
        }
        return root.appendingPathComponent("halo-desk", isDirectory: true)
    }
}
