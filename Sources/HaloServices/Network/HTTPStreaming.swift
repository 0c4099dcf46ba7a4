import CCurl
import Foundation
import HaloContentStore

/// One HTTP request for the streaming transport.
public struct HTTPStreamingRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A JSON request: `Content-Type: application/json` and the value as its body.
    public static func json(
        _ method: String, _ url: URL, _ body: JSONValue?, authorization: String?, extraHeaders: [String: String] = [:]
    ) -> HTTPStreamingRequest {
        var headers = extraHeaders
        headers["Content-Type"] = "application/json"
        if let authorization { headers["Authorization"] = authorization }
        return HTTPStreamingRequest(method: method, url: url, headers: headers, body: body?.data(sortedKeys: false))
    }
}

/// Status and headers of an answer (header names lowercased).
public struct HTTPStreamingResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
}

/// A minimal blocking HTTP client over libcurl that hands the body over as it arrives.
///
/// It exists so a 70 MB sync answer never sits in memory: `perform` runs on the calling thread
/// (never call it from the cooperative pool: use `HTTPStreaming.run` or a dedicated thread) and
/// feeds each received block to `onData`, which parses and stores it before curl reads more —
/// the socket itself is the back-pressure.
public enum HTTPStreaming {
    /// Largest error body kept to build a `HaloError` from (error envelopes are small).
    static let maxErrorBodyBytes = 64 * 1024

    /// `CURL_GLOBAL_ALL` (SSL | WIN32 = 3); a macro Swift does not import.
    private static let globalInit: Bool = curl_global_init(3) == CURLE_OK

    /// Performs `request`, calling `onHeaders` once the status line and headers are in (a 2xx
    /// answer only) and `onData` for each body block of a 2xx answer. Non-2xx answers become
    /// `HaloError.server` with the envelope's message. `isCancelled` is polled while transferring.
    public static func perform(
        _ request: HTTPStreamingRequest,
        timeoutSeconds: Int = 300,
        isCancelled: @escaping () -> Bool = { false },
        onHeaders: (HTTPStreamingResponse) throws -> Void = { _ in },
        onData: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> HTTPStreamingResponse {
        guard globalInit, let handle = curl_easy_init() else {
            throw HaloError.network(message: "The HTTP client (libcurl) could not be initialised.")
        }
        defer { curl_easy_cleanup(handle) }

        return try withoutActuallyEscaping(onHeaders) { onHeaders in
            try withoutActuallyEscaping(onData) { onData in
                let transfer = Transfer(isCancelled: isCancelled, onHeaders: onHeaders, onData: onData)
                let unmanaged = Unmanaged.passRetained(transfer)
                defer { unmanaged.release() }
                let context = unmanaged.toOpaque()

                var headerList: UnsafeMutablePointer<curl_slist>? = nil
                defer { curl_slist_free_all(headerList) }
                // "Expect: 100-continue" costs a round trip on every POST larger than 1 KB.
                for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) + [("Expect", "")] {
                    headerList = curl_slist_append(headerList, "\(name): \(value)")
                }

                _ = halo_curl_setopt_string(handle, CURLOPT_URL, request.url.absoluteString)
                _ = halo_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
                _ = halo_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, 10)
                _ = halo_curl_setopt_long(handle, CURLOPT_TIMEOUT, timeoutSeconds)
                _ = halo_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
                if let body = request.body {
                    _ = halo_curl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
                    // COPYPOSTFIELDS copies, so the Data may go away before the transfer ends.
                    _ = body.withUnsafeBytes { bytes in
                        if let base = bytes.baseAddress, !bytes.isEmpty {
                            halo_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
                        } else {
                            halo_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
                        }
                    }
                } else if request.method == "GET" {
                    _ = halo_curl_setopt_long(handle, CURLOPT_HTTPGET, 1)
                }
                _ = halo_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))
                _ = halo_curl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, headerCallback)
                _ = halo_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
                _ = halo_curl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, writeCallback)
                _ = halo_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
                _ = halo_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
                _ = halo_curl_setopt_xferinfo_callback(handle, progressCallback)
                _ = halo_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)

                let code = curl_easy_perform(handle)
                if let error = transfer.callbackError { throw error }
                if transfer.isCancelled() { throw HaloError.cancelled }
                guard code == CURLE_OK else {
                    let reason = String(cString: curl_easy_strerror(code))
                    throw HaloError.network(message: "\(request.method) \(request.url.path) failed: \(reason)")
                }
                var status = 0
                _ = halo_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
                let response = HTTPStreamingResponse(status: status, headers: transfer.headers)
                guard (200..<300).contains(status) else {
                    throw errorFromBody(status: status, body: transfer.errorBody)
                }
                if !transfer.headersDelivered { try onHeaders(response) }
                return response
            }
        }
    }

    /// Performs `request` on a dedicated thread and returns the whole body (small answers only).
    public static func data(_ request: HTTPStreamingRequest, timeoutSeconds: Int = 60) async throws -> (HTTPStreamingResponse, Data) {
        try await run { isCancelled in
            var body = Data()
            let response = try perform(request, timeoutSeconds: timeoutSeconds, isCancelled: isCancelled) { chunk in
                body.append(contentsOf: chunk)
            }
            return (response, body)
        }
    }

    /// Runs blocking transport work on its own thread (curl blocks; the cooperative pool must not),
    /// passing it a "was the task cancelled" probe.
    /// `cancelFlag` lets a caller cancel the work from outside the task too.
    static func run<T: Sendable>(
        cancelFlag flag: CancellationFlag = CancellationFlag(),
        _ work: @escaping @Sendable (_ isCancelled: @escaping () -> Bool) throws -> T
    ) async throws -> T {
        try await withTaskCancellationHandler {
            try await BlockingWork.run(name: "halo-http-stream") { Result { try work(flag.isSet) } }.get()
        } onCancel: {
            flag.set()
        }
    }

    /// The HALO error envelope (§2.1) of a failed answer, or a generic error when there is none.
    static func errorFromBody(status: Int, body: Data) -> HaloError {
        if let json = try? JSONValue(data: body), let error = json["error"] {
            let message = error["message"]?.stringValue ?? "HTTP \(status)"
            return .server(status: status, message: message, extra: error["extra"])
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return .server(status: status, message: text.isEmpty ? "HTTP \(status)" : text, extra: nil)
    }
}

/// A thread-safe "cancelled" bit shared between a task's cancellation handler and a worker thread.
final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    func isSet() -> Bool { lock.withLock { value } }
}

/// The state curl's C callbacks reach through their user-data pointer. Used by one thread only.
private final class Transfer {
    let isCancelled: () -> Bool
    let onHeaders: (HTTPStreamingResponse) throws -> Void
    let onData: (UnsafeRawBufferPointer) throws -> Void
    var headers: [String: String] = [:]
    var status = 0
    var headersDelivered = false
    var errorBody = Data()
    var callbackError: (any Error)?

    init(
        isCancelled: @escaping () -> Bool, onHeaders: @escaping (HTTPStreamingResponse) throws -> Void,
        onData: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) {
        self.isCancelled = isCancelled
        self.onHeaders = onHeaders
        self.onData = onData
    }

    var isSuccess: Bool { (200..<300).contains(status) }
}

/// Collects the status line and headers; a new status line (redirect, 100 Continue) starts over.
private func headerCallback(
    _ pointer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let pointer, let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let line = String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
    if line.hasPrefix("HTTP/") {
        let parts = line.split(separator: " ")
        transfer.status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        transfer.headers = [:]
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].lowercased()
        transfer.headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return length
}

/// Hands body blocks of a 2xx answer to the consumer; keeps (a bounded prefix of) error bodies.
private func writeCallback(
    _ pointer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
    if !transfer.isSuccess {
        let room = max(0, HTTPStreaming.maxErrorBodyBytes - transfer.errorBody.count)
        transfer.errorBody.append(contentsOf: bytes.prefix(room))
        return length
    }
    do {
        if !transfer.headersDelivered {
            transfer.headersDelivered = true
            try transfer.onHeaders(HTTPStreamingResponse(status: transfer.status, headers: transfer.headers))
        }
        try transfer.onData(bytes)
        return transfer.isCancelled() ? 0 : length
    } catch {
        transfer.callbackError = error
        return 0  // anything but `length` makes curl abort the transfer
    }
}

/// Aborts the transfer once cancelled, even while no bytes arrive.
private func progressCallback(
    _ context: UnsafeMutableRawPointer?, _ downloadTotal: curl_off_t, _ downloaded: curl_off_t, _ uploadTotal: curl_off_t,
    _ uploaded: curl_off_t
) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().isCancelled() ? 1 : 0
}
