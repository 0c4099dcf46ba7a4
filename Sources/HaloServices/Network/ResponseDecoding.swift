import Foundation

extension HaloError {
    /// The error for a non-2xx response: the envelope's message (PROTOCOL §2.1) with the status,
    /// or a clear sentence when the body is not an envelope.
    init(response: HTTPResponse) {
        let status = response.statusCode
        if let envelope = try? JSONValue(data: response.body), let error = envelope["error"] {
            let message = error["message"]?.stringValue ?? "HTTP \(status)"
            let extra = error["extra"].flatMap { $0.isNull ? nil : $0 }
            self = .server(status: status, message: message, extra: extra)
        } else if response.body.isEmpty {
            self = .server(status: status, message: HTTPStatusText.reason(status), extra: nil)
        } else {
            let snippet = String(decoding: response.body.prefix(200), as: UTF8.self)
            self = .server(status: status, message: "\(HTTPStatusText.reason(status)) (response is not valid JSON: \(snippet))", extra: nil)
        }
    }
}

enum HTTPStatusText {
    static func reason(_ status: Int) -> String {
        switch status {
        case 400: return "Bad request"
        case 401: return "Not authorized"
        case 403: return "Forbidden"
        case 404: return "Not found"
        case 409: return "Conflict"
        case 500..<600: return "Server error"
        default: return "HTTP \(status)"
        }
    }
}

extension HTTPResponse {
    /// The body as JSON, or `invalidResponse` naming what was expected.
    func json() throws(HaloError) -> JSONValue {
        do { return try JSONValue(parsing: body) } catch {
            throw .invalidResponse(status: statusCode, message: "response is not valid JSON (\(error))")
        }
    }

    /// The body decoded as `T`, or `invalidResponse` naming the type.
    func decode<T: Decodable>(_ type: T.Type) throws(HaloError) -> T {
        do { return try JSONDecoder().decode(T.self, from: body) } catch {
            throw .invalidResponse(status: statusCode, message: "cannot read \(T.self) from the response: \(Self.describe(error))")
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing key \(([context.codingPath.map(\.stringValue), [key.stringValue]].flatMap { $0 }).joined(separator: "."))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            return "\(context.debugDescription) at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default:
            return "\(error)"
        }
    }
}
