import Foundation

/// How HALO writes a locale: `en`, `en-US`, `zh-Hant-TW`, or with underscores (`es_ES`). The
/// server checks the keys of localized text with it, and the app's editor checks a new locale.
public enum LocaleCode {
    public static func isValid(_ code: String) -> Bool {
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isLetter && $0.isASCII }) else {
            return false
        }
        return parts.dropFirst().allSatisfy { (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}

/// How a Color field's value is written: `#rgb`, `#rrggbb` or `#rrggbbaa` (the `#` optional).
/// The server validates with it and the app's color editor checks what is typed.
public enum HexColor {
    public static func isValid(_ text: String) -> Bool {
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        return [3, 6, 8].contains(digits.count) && digits.allSatisfy(\.isHexDigit)
    }
}

/// A web address HALO accepts in a link field or a notification: `http` or `https` with a host.
/// The server validates with it; the app checks what is typed and what a notification would open.
public enum WebAddress {
    public static func isValid(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host else { return false }
        return (scheme == "http" || scheme == "https") && !host.isEmpty
    }
}
