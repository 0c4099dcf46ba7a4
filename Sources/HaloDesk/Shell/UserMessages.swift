import HaloServices

/// Turns SDK errors into the sentences the windows show (inline or in toasts).
enum UserMessages {
    /// Sign-in and registration failures: specific where the cause is known.
    static func signInFailure(_ error: Error) -> String {
        guard let error = error as? HaloError else { return "\(error)" }
        switch error {
        case .server(let status, let message, _) where status == 400 || status == 401 || status == 403:
            if message.localizedCaseInsensitiveContains("credential") || message.localizedCaseInsensitiveContains("password") {
                return "Wrong email or password."
            }
            return message
        case .network(let message):
            return "The server is unreachable (\(message))."
        default:
            return error.description
        }
    }

    /// Any other failure, as one sentence.
    static func describe(_ error: Error) -> String {
        (error as? HaloError)?.description ?? "\(error)"
    }
}
