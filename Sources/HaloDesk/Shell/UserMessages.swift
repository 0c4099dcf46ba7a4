import HaloServices

/// Turns SDK errors into the sentences the windows show (inline or in toasts).
enum UserMessages {
    /// A browser sign-in's failure: the SDK's and the server's sentences as they are (they name the
    /// provider and the reason; "password" in them is not about a wrong password).
    static func browserSignInFailure(_ error: HaloError) -> String {
        switch error {
        case .server(let status, let message, _) where [400, 401, 403].contains(status): return message
        case .network, .invalidResponse: return error.sentence
        default: return error.description
        }
    }

    /// Sign-in and registration failures: specific where the cause is known.
    static func signInFailure(_ error: Error) -> String {
        guard let error = error as? HaloError else { return "\(error)" }
        if case .server(let status, let message, _) = error, [400, 401, 403].contains(status),
            message.localizedCaseInsensitiveContains("credential") || message.localizedCaseInsensitiveContains("password")
        {
            return "Wrong email or password."
        }
        return browserSignInFailure(error)
    }

    /// Any other failure, as one sentence.
    static func describe(_ error: Error) -> String {
        (error as? HaloError)?.sentence ?? "\(error)"
    }
}

/// Errors as the app says them: sentences without HTTP statuses or transport jargon (the SDK's
/// `description`, with those details, goes to the log).
extension HaloError {
    /// A sentence for a toast or a banner.
    var sentence: String {
        switch self {
        case .server(_, let message, _):
            return fieldProblem?.description ?? message
        case .invalidResponse: return "The server sent an answer HaloDesk cannot read."
        case .network: return "The server cannot be reached."
        default: return description
        }
    }

    /// A value the server refused, as the editor shows it under the field: "Color must be a hex
    /// color such as #1a2b3c." Nil when the refusal names no field.
    var fieldProblem: FieldValueError? {
        guard case .server(_, _, let extra) = self, let field = extra?["field"]?.stringValue, !field.isEmpty else { return nil }
        // The server's message reads "'color' (Color) must be …": keep the rule, name the field.
        var rule = extra?["message"]?.stringValue ?? "is not valid"
        if let prefix = rule.range(of: #"^'[^']*'( \([^)]*\))? "#, options: .regularExpression) { rule.removeSubrange(prefix) }
        let name = field.prefix(1).uppercased() + field.dropFirst()
        return FieldValueError("\(name) \(rule)\(rule.hasSuffix(".") ? "" : ".")", field: field)
    }
}
