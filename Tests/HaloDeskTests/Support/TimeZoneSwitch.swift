import Foundation

/// Switches the process's time zone (`TZ`, read by GLib and the C library) during a test;
/// `restore` puts back the zone the test started with.
final class TimeZoneSwitch {
    private let saved = getenv("TZ").map { String(cString: $0) }

    func use(_ name: String) {
        setenv("TZ", name, 1)
        tzset()
    }

    func restore() {
        if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
        tzset()
    }
}
