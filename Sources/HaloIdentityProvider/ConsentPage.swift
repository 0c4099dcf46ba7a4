/// The provider's HTML pages: account choice and consent, and errors. Everything echoed is escaped.
enum ConsentPage {
    /// The fields of the authorization request, carried through the consent form unchanged.
    static let carriedFields = [
        "client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge", "code_challenge_method", "nonce",
    ]

    static func consent(request: [String: String], client: LocalIdentityProvider.Client, settings: LocalIdentityProvider.Settings)
        -> String
    {
        let hidden = carriedFields.compactMap { name in
            request[name].map { #"<input type="hidden" name="\#(name)" value="\#(escape($0))">"# }
        }.joined(separator: "\n")
        let scopes = (request["scope"] ?? "openid").split(separator: " ").map(String.init)
        var wants = ["Know who you are"]
        if scopes.contains("email") { wants.append("See your email address") }
        if scopes.contains("profile") { wants.append("See your name and picture") }
        let accounts = settings.accounts.map { account in
            let detail = account.email.map { escape($0) + (account.emailVerified ? "" : " (not verified)") } ?? "no email address"
            return """
                <button type="submit" name="account" value="\(escape(account.subject))" class="account">
                <strong>Continue as \(escape(account.displayName))</strong><span>\(detail)</span></button>
                """
        }.joined(separator: "\n")
        return page(
            title: "Sign in to \(client.name)",
            body: """
                <p class="provider">\(escape(settings.displayName))</p>
                <h1>Sign in to \(escape(client.name))</h1>
                <p>\(escape(client.name)) wants to:</p>
                <ul>\(wants.map { "<li>\(escape($0))</li>" }.joined())</ul>
                <p>Choose an account:</p>
                <form method="post" action="/authorize">
                \(hidden)
                \(accounts)
                <button type="submit" name="cancel" value="1" class="cancel">Cancel</button>
                </form>
                """)
    }

    static func error(_ message: String, provider: String) -> String {
        page(
            title: "Sign-in error",
            body: """
                <p class="provider">\(escape(provider))</p>
                <h1>Sign-in cannot continue</h1>
                <p>\(escape(message))</p>
                """)
    }

    private static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>\(escape(title))</title>
        <style>
        body { font-family: Cantarell, system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #222; }
        .provider { color: #666; font-size: 0.9rem; }
        button { display: block; width: 100%; margin: 0.5rem 0; padding: 0.8rem; font: inherit; text-align: left;
                 border: 1px solid #ccc; border-radius: 8px; background: #fafafa; cursor: pointer; }
        button span { display: block; color: #666; font-size: 0.9rem; }
        button.cancel { text-align: center; }
        @media (prefers-color-scheme: dark) { body { background: #242424; color: #eee; } button { background: #333; color: #eee; border-color: #555; } }
        </style></head>
        <body>
        \(body)
        </body></html>
        """
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
