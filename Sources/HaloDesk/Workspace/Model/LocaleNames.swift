import Foundation
import HaloServices

/// Names of locale codes for the localized-text editor ("es-ES" → "Spanish (Spain)"), read from
/// the iso-codes package (ISO 639-2 languages, ISO 3166 countries) as GNOME's language choosers
/// do; a code it does not know is shown as the code. Read once, the first time a name is asked.
enum LocaleNames {
    private static let languages: [String: String] = load("iso_639-2", list: "639-2", code: "alpha_2")
    private static let countries: [String: String] = load("iso_3166-1", list: "3166-1", code: "alpha_2")

    /// "Spanish (Spain)" for "es-ES" or "es_ES"; "Spanish" for "es"; the code itself when unknown.
    static func name(of code: String) -> String {
        let parts = code.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let first = parts.first, let language = languages[first.lowercased()] else { return code }
        // The last part of two letters is the country (zh-Hant-TW: TW).
        guard let region = parts.dropFirst().last(where: { $0.count == 2 }), let country = countries[region.uppercased()] else {
            return language
        }
        return "\(language) (\(country))"
    }

    private static func load(_ file: String, list: String, code: String) -> [String: String] {
        let url = URL(fileURLWithPath: "/usr/share/iso-codes/json/\(file).json")
        guard let data = try? Data(contentsOf: url), let json = try? JSONValue(data: data), let entries = json[list]?.arrayValue else {
            return [:]
        }
        var names: [String: String] = [:]
        for entry in entries {
            guard let key = entry[code]?.stringValue else { continue }
            // iso-codes gives a common name for some ("Taiwan" over "Taiwan, Province of China").
            let name = entry["common_name"]?.stringValue ?? entry["name"]?.stringValue
            // "Spanish; Castilian" is Spanish to a reader, "Greek, Modern (1453-)" Greek, Modern.
            names[key] = name.map { $0.components(separatedBy: ";")[0].components(separatedBy: " (")[0] }
        }
        return names
    }
}
