import HaloContentStore

// The one size rule of a notification's `payload` (ours, docs/limits.md): the server refuses a
// payload over `payloadByteLimit` bytes, so the Send Notification window counts the same bytes
// as the user types and its user never meets that refusal.
extension PushDraft {
    /// The largest `payload`, in UTF-8 bytes of its compact JSON (4,096).
    public static let payloadByteLimit = PushLimits.payloadBytes

    /// The bytes this draft's `payload` takes, counted as the server counts them.
    public var payloadBytes: Int { PushLimits.payloadBytes(wireJSON["payload"] ?? .object([:])) }

    /// The bytes left before `payloadByteLimit` (negative when over).
    public var payloadBytesLeft: Int { Self.payloadByteLimit - payloadBytes }
}
