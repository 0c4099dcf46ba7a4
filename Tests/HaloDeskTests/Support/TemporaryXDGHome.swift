import Foundation

/// A test's own XDG home: `data`, `config` and `cache` folders in a new temporary directory,
/// `XDG_DATA_HOME`, `XDG_CONFIG_HOME` and `XDG_CACHE_HOME` pointed there, and all of it put back
/// (variables restored, directory removed) by `restore()`.
final class TemporaryXDGHome {
    let url: URL
    private var saved: [String: String?] = [:]

    init(_ name: String) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("halo-\(name)-\(UUID().uuidString)")
        for (variable, folder) in [("XDG_DATA_HOME", "data"), ("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")] {
            saved[variable] = ProcessInfo.processInfo.environment[variable]
            setenv(variable, url.appendingPathComponent(folder).path, 1)
        }
    }

    func restore() {
        for (variable, value) in saved {
            if let value { setenv(variable, value, 1) } else { unsetenv(variable) }
        }
        try? FileManager.default.removeItem(at: url)
    }
}
