extension DecodingError {
    /// A client-facing sentence naming where the body was wrong (`'pagination.page': …`), for 400s.
    var clientMessage: String {
        switch self {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
            .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "'\(path)': \(context.debugDescription)"
        @unknown default:
            return String(describing: self)
        }
    }
}
