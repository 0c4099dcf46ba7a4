/// The size rule of a notification's `payload` (ours, docs/limits.md), one definition for the
/// server's check and the app's count of the bytes left. HALO bounds `title` and `body`; without
/// a bound on the rest, one `payload.notification.icon` of 7 MB went to every listening device.
public enum PushLimits {
    /// Ours: the largest `payload`, in UTF-8 bytes as `payloadBytes` counts them.
    public static let payloadBytes = 4096

    /// How a `payload` is measured against `payloadBytes`: the UTF-8 bytes of its compact JSON
    /// (sorted keys; the order changes no byte count).
    public static func payloadBytes(_ payload: JSONValue) -> Int {
        payload.jsonString(sortedKeys: true).utf8.count
    }
}
