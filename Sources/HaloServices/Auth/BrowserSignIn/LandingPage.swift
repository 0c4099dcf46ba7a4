/// The page the browser shows after the redirect to HaloDesk's listener. It says what happened and
/// that the user can go back to HaloDesk; it does not promise to close itself (browsers refuse
/// `window.close()` for tabs a script did not open). Everything echoed is HTML-escaped.
enum LandingPage {
    static func page(for callback: LoopbackRedirectListener.Callback, provider: String) -> String {
        switch callback {
        case .code:
            return document(
                title: "Signed in", heading: "Signed in with \(provider)",
                message: "HaloDesk is finishing the sign-in. You can close this tab and return to HaloDesk.")
        case .error(let code, let description):
            let reason = code == "access_denied" ? "You cancelled the sign-in at \(provider)." : (description ?? code)
            return document(
                title: "Sign-in did not finish", heading: "Sign-in with \(provider) did not finish",
                message: "\(reason) You can close this tab and return to HaloDesk to try again.")
        }
    }

    static func refused(_ message: String) -> String {
        document(title: "HaloDesk", heading: "Not a sign-in HaloDesk is waiting for", message: message)
    }

    private static func document(title: String, heading: String, message: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title)) – HaloDesk</title>
        <style>
        body { font-family: Cantarell, system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; color: #222; }
        @media (prefers-color-scheme: dark) { body { background: #242424; color: #eee; } }
        </style></head>
        <body><h1>\(escape(heading))</h1><p>\(escape(message))</p></body></html>
        """
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
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
