import Foundation

/// The system tags (type …0001) the SDK puts on the device when `ENABLE_SYSTEM_TAGS` is on:
/// the Linux equivalents of the iOS set (PROTOCOL §6.4).
enum SystemTags {
    static func collect(applicationName: String, applicationVersion: String, environment: HaloEnvironment) -> [Tag] {
        var values: [(String, String)] = [
            ("Platform Name", "linux"),
            ("OS Version", osVersion()),
            ("Distribution", distribution()),
            ("Device Name", ProcessInfo.processInfo.hostName),
            ("Application Name", applicationName),
            ("Application Version", applicationVersion),
            ("Locale", Locale.current.identifier.replacingOccurrences(of: "_", with: "-")),
            ("Device Type", "Desktop"),
        ]
        if environment.isTestEnvironment { values.append(("Test Device", "true")) }
        return values.map { Tag(name: $0.0, value: $0.1, tagType: Tag.systemType) }
    }

    /// The kernel release (`uname -r`), e.g. `6.1.0-18-amd64`.
    static func osVersion() -> String {
        var info = utsname()
        guard uname(&info) == 0 else { return ProcessInfo.processInfo.operatingSystemVersionString }
        return withUnsafeBytes(of: &info.release) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }

    /// `PRETTY_NAME` from /etc/os-release (e.g. `Debian GNU/Linux 12 (bookworm)`), else `NAME VERSION_ID`.
    static func distribution(osRelease: URL = URL(fileURLWithPath: "/etc/os-release")) -> String {
        guard let text = try? String(contentsOf: osRelease, encoding: .utf8) else { return "Linux" }
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let value = line[line.index(after: equals)...].trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            fields[String(line[..<equals])] = value
        }
        if let pretty = fields["PRETTY_NAME"], !pretty.isEmpty { return pretty }
        return [fields["NAME"], fields["VERSION_ID"]].compactMap { $0 }.joined(separator: " ").nonEmpty ?? "Linux"
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
