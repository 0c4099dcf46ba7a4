/// Who a request acts for, resolved from its bearer token.
struct Principal: Sendable {
    /// The app client the token was issued to (nil for tokens from an identified login made
    /// without an app token).
    var clientId: String?
    /// The user (editor account or identified user) the token belongs to; nil for app tokens.
    var userId: String?
    /// Whether the token may write content (E15–E18): an editor user, or an app client marked editor.
    var canEdit: Bool
    /// Display name recorded in `createdBy` / `updatedBy` / `deletedBy`.
    var displayName: String
    /// The app (`appId`, §6.2) of `clientId`: the only one its devices may name (§23.12).
    var clientAppId: Int64? = nil
}
