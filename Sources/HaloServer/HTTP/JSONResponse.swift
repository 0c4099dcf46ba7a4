import Foundation
import HTTPTypes
import HaloContentStore
import Hummingbird

/// Builds JSON responses. Keys are written unsorted and slashes unescaped, like HALO did.
enum JSONResponse {
    static let contentType = "application/json; charset=utf-8"

    static func make(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        make(data: value.data(sortedKeys: false), status: status)
    }

    static func make(encoding value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        make(data: try encoder().encode(value), status: status)
    }

    static func make(data: Data, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }
}
