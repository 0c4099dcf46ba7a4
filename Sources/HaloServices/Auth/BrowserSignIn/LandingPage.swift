/// The page the browser shows after the redirect to HaloDesk's listener. It is sent once the
/// outcome is known (the code exchanged and HALO's login done), or after the listener's wait with
/// "still signing you in", and says in words whether the person is signed in and, if not, what to
/// do: never a server's or provider's own sentence (HaloDesk or `halo` shows those). It does not
/// promise to close itself (browsers refuse `window.close()` for tabs a script did not open).
/// Everything interpolated is HTML-escaped.
enum LandingPage {
    /// Where a sign-in that had its code stopped.
    enum Step: Sendable {
        /// Exchanging the code at the provider's token endpoint.
        case provider
        /// HALO's identified login with the provider's token.
        case server
    }

    static func signedIn(provider: String, as who: String) -> String {
        let message = who.isEmpty ? "You are signed in to HaloDesk." : "You are signed in to HaloDesk as \(who)."
        return document(
            tone: .success, title: "Signed in", heading: "Signed in with \(provider)", message: message,
            hint: "You can close this tab and return to HaloDesk.")
    }

    static func stillRunning(provider: String) -> String {
        document(
            tone: .pending, title: "Still signing you in", heading: "Still signing you in…",
            message: "HaloDesk is still finishing the sign-in with \(provider). This can take a while on a slow connection.",
            hint: "Return to HaloDesk to see the outcome. You can close this tab.")
    }

    /// The provider sent the person back with an error instead of a code.
    static func declined(code: String, provider: String) -> String {
        let message =
            code == "access_denied"
            ? "You cancelled the sign-in at \(provider). You are not signed in."
            : "\(provider) could not complete the sign-in, so you are not signed in."
        return notSignedIn(
            provider: provider, message: message,
            hint: "To try again, start the sign-in from HaloDesk. You can close this tab.")
    }

    /// The code arrived but the sign-in failed at `step`.
    static func failed(_ error: HaloError, at step: Step, provider: String) -> String {
        let message: String
        var hint = "Return to HaloDesk and start the sign-in again. You can close this tab."
        switch (step, error) {
        case (_, .cancelled):
            message = "The sign-in was cancelled in HaloDesk, so you are not signed in."
            hint = "Start it again from HaloDesk when you are ready. You can close this tab."
        case (.provider, .notAuthenticated):
            message =
                "\(provider) did not confirm this sign-in, so you are not signed in. This happens when the sign-in was started in another window or took too long."
            hint = "Return to HaloDesk and start the sign-in again. If you did not start a sign-in, you can ignore this page."
        case (.provider, .network):
            message = "HaloDesk could not reach \(provider) to finish signing you in, so you are not signed in."
            hint = "Check your internet connection, then return to HaloDesk and start the sign-in again."
        case (.provider, _):
            message = "\(provider) sent an answer HaloDesk could not use, so you are not signed in."
            hint =
                "Return to HaloDesk and try again. If it keeps happening, ask whoever set up sign-in with \(provider) to check its settings."
        case (.server, .server(let status, _, _)) where (400..<500).contains(status):
            message = "Your HALO server did not accept your \(provider) account, so you are not signed in."
            hint =
                "HaloDesk shows the reason. Sign in with your email and password instead, or ask the server's administrator to allow sign-in with \(provider)."
        case (.server, .notAuthenticated):
            message = "Your HALO server did not accept your \(provider) account, so you are not signed in."
            hint = "HaloDesk shows the reason. Sign in with your email and password instead, or ask the server's administrator for help."
        case (.server, .network), (.server, .server), (.server, .sslPinningFailed), (.server, .invalidResponse):
            message = "HaloDesk could not reach your HALO server to finish signing you in, so you are not signed in."
            hint = "Check your connection, then return to HaloDesk and start the sign-in again."
        case (.server, _):
            message = "Something went wrong while HaloDesk finished the sign-in, so you are not signed in."
            hint = "HaloDesk shows what happened. Return to it and start the sign-in again."
        }
        return notSignedIn(provider: provider, message: message, hint: hint)
    }

    static func refused(_ message: String) -> String {
        document(tone: .neutral, title: "HaloDesk", heading: "Not a sign-in HaloDesk is waiting for", message: message, hint: nil)
    }

    private static func notSignedIn(provider: String, message: String, hint: String) -> String {
        document(tone: .failure, title: "Not signed in", heading: "Sign-in with \(provider) did not finish", message: message, hint: hint)
    }

    private enum Tone {
        case success, pending, failure, neutral

        var name: String {
            switch self {
            case .success: "success"
            case .pending: "pending"
            case .failure: "failure"
            case .neutral: "neutral"
            }
        }

        /// A symbolic icon drawn inline (the page's policy loads nothing, images included).
        var icon: String {
            let mark: String
            switch self {
            case .success:
                mark =
                    ##"<path d="M20 33l8 8 16-17" fill="none" stroke="#fff" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/>"##
            case .failure:
                mark =
                    ##"<path d="M32 18v17" stroke="#fff" stroke-width="5" stroke-linecap="round"/><circle cx="32" cy="45" r="3.2" fill="#fff"/>"##
            case .neutral:
                mark =
                    ##"<path d="M32 29v16" stroke="#fff" stroke-width="5" stroke-linecap="round"/><circle cx="32" cy="19.5" r="3.2" fill="#fff"/>"##
            // A clock, not a spinner: the page itself will not change (the outcome shows in HaloDesk).
            case .pending:
                mark =
                    ##"<path d="M32 17v16l10 6" fill="none" stroke="#fff" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/>"##
            }
            return ##"<svg class="icon" viewBox="0 0 64 64" aria-hidden="true"><circle class="disc" cx="32" cy="32" r="30"/>"## + mark
                + "</svg>"
        }
    }

    /// A calm page in GNOME's colours (libadwaita's palette, light and dark) with one card. The
    /// icons' discs keep their colour in both (white marks on them stay readable).
    private static func document(tone: Tone, title: String, heading: String, message: String, hint: String?) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title)) – HaloDesk</title>
        <style>
        :root { color-scheme: light dark; --bg: #fafafb; --card: #ffffff; --fg: rgb(0 0 6 / 80%); --dim: rgb(0 0 6 / 55%);
          --border: rgb(0 0 6 / 7%); --success: #26a269; --pending: #3584e4; --failure: #c01c28; --neutral: #77767b; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #222226; --card: #36363a; --fg: #ffffff; --dim: rgb(255 255 255 / 60%); --border: rgb(0 0 6 / 36%); }
        }
        html { background: var(--bg); }
        body { margin: 0; min-height: 100vh; display: flex; align-items: center; justify-content: center; color: var(--fg);
          font: 11pt/1.5 Cantarell, "Adwaita Sans", system-ui, sans-serif; }
        main { box-sizing: border-box; max-width: 30rem; margin: 1.5rem; padding: 2rem 2.5rem; text-align: center; background: var(--card);
          border-radius: 12px; box-shadow: 0 0 0 1px var(--border), 0 1px 3px 1px rgb(0 0 6 / 7%), 0 2px 8px 2px rgb(0 0 6 / 4%); }
        .success { --tone: var(--success); } .pending { --tone: var(--pending); }
        .failure { --tone: var(--failure); } .neutral { --tone: var(--neutral); }
        .icon { width: 64px; height: 64px; }
        .disc { fill: var(--tone); }
        h1 { font-size: 20pt; font-weight: 800; line-height: 1.25; margin: 0.75rem 0 0.5rem; }
        p { margin: 0.5rem 0 0; }
        .hint { color: var(--dim); font-size: 10pt; margin-top: 1rem; }
        </style></head>
        <body><main class="\(tone.name)" role="status">\(tone.icon)
        <h1>\(escape(heading))</h1>
        <p>\(escape(message))</p>\(hint.map { "\n<p class=\"hint\">\(escape($0))</p>" } ?? "")
        </main></body></html>
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
