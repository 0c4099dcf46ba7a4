/// Facts about the application that must agree everywhere: the app id names the desktop file,
/// the AppStream metainfo, the icon and the D-Bus name (`data/` uses the same string).
enum AppInfo {
    static let applicationID = "io.github.halodesk.HaloDesk"
    static let name = "HaloDesk"
    static let version = "0.1.0"
    static let website = "https://github.com/halodesk/halodesk"
}
