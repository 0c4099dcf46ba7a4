import Foundation
import HaloContentStore
import XCTest

/// A device registered on a test server, with its event stream credential.
struct RegisteredDevice {
    var id: String
    var alias: String
    var secret: String
    var headers: [String: String] { ["X-Halo-Device": id, "X-Halo-Device-Secret": secret] }
}

extension TestServer {
    /// Registers a device (`POST /api/segmentation/appuser`) carrying `tags` (name, value).
    func registerDevice(token: String, alias: String, tags: [(String, String)] = [], appId: Int = 1) async throws -> RegisteredDevice {
        let answer = try await call(
            "POST", "/api/segmentation/appuser", token: token,
            body: .json([
                "alias": .string(alias), "appId": .number(Double(appId)),
                "tags": .array(tags.map { .object(["name": .string($0.0), "value": .string($0.1)]) }),
            ]))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
        return RegisteredDevice(
            id: try XCTUnwrap(answer.json["id"]?.stringValue), alias: alias,
            secret: try XCTUnwrap(answer.json["eventStreamSecret"]?.stringValue, "a new device gets its stream secret"))
    }
}

extension TestServer {
    /// A JSON request that must answer `status`; returns the answer's JSON (the failure names the call).
    @discardableResult
    func expect(
        _ method: String, _ path: String, _ body: JSONValue? = nil, token: String, status: Int = 200, file: StaticString = #filePath,
        line: UInt = #line
    ) async throws -> JSONValue {
        let answer = try await call(method, path, token: token, body: body.map { .json($0) })
        XCTAssertEqual(answer.status, status, "\(method) \(path): \(String(decoding: answer.data, as: UTF8.self))", file: file, line: line)
        return answer.json
    }
}
