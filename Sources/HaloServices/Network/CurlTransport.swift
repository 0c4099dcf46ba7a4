import CCurl
import Foundation
import Synchronization

/// Sends HTTP requests with libcurl.
///
/// Each transfer runs on its own thread (libcurl's easy interface blocks), so Swift's
/// cooperative pool is never held. Easy handles are pooled: libcurl keeps its connection cache
/// inside the handle, so reusing handles reuses keep-alive connections. Cancelling the calling
/// task aborts the transfer through the progress callback.
///
/// This is the SDK's only HTTP client: buffered calls and streamed ones (`perform(_:options:streamingTo:)`)
/// share one option setup, so TLS pinning, the http-only-for-loopback rule, timeouts and
/// cancellation are configured in exactly one place.
public final class CurlTransport: Sendable {
    /// An easy handle; only ever used by one thread at a time (taken from / returned to the pool).
    fileprivate struct EasyHandle: @unchecked Sendable { let pointer: UnsafeMutableRawPointer }

    private let idleHandles = Mutex<[EasyHandle]>([])
    private static let maximumIdleHandles = 8

    /// libcurl is opened (and `curl_global_init` run) on the first transfer, not at start-up:
    /// see Sources/CCurl/shim.h.
    public init() {}

    deinit {
        for handle in idleHandles.withLock({ $0 }) { halo_curl_easy_cleanup(handle.pointer) }
    }

    /// Performs `request`. Non-2xx statuses are returned, not thrown: the caller interprets them.
    public func perform(_ request: HTTPRequest, options: TransferOptions) async throws(HaloError) -> HTTPResponse {
        try await transfer(request, options: options, sink: nil)
    }

    /// Performs `request`, handing the body of a 2xx answer to `sink` block by block as it
    /// arrives (on the transfer's thread) instead of keeping it: the returned response then has an
    /// empty body. The body of any other status is kept (up to `options.maximumResponseBytes`)
    /// and returned, for the caller to interpret. The size cap does not apply to a streamed body.
    public func perform(
        _ request: HTTPRequest, options: TransferOptions, streamingTo sink: any HTTPBodySink
    ) async throws(HaloError) -> HTTPResponse {
        try await transfer(request, options: options, sink: sink)
    }

    private func transfer(_ request: HTTPRequest, options: TransferOptions, sink: (any HTTPBodySink)?) async throws(HaloError)
        -> HTTPResponse
    {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw .configuration(
                message: "Unsupported URL \(request.url.absoluteString): only https (and http to this machine) are allowed")
        }
        if scheme == "http" && !request.url.isLoopbackHost {
            throw .configuration(
                message:
                    "Refusing plain http to \(request.url.host ?? "?"): http is only allowed for loopback hosts (127.0.0.1, localhost, ::1); use https"
            )
        }
        let context = TransferContext(maximumBytes: options.maximumResponseBytes, sink: sink)
        let job = TransferJob(transport: self, request: request, options: options, context: context)
        let result: Result<HTTPResponse, HaloError> = await withTaskCancellationHandler {
            await BlockingWork.run(name: "halo-curl") { job.run() }
        } onCancel: {
            context.cancelled.store(true, ordering: .relaxed)
        }
        return try result.get()
    }

    fileprivate func takeHandle() -> EasyHandle? {
        if let handle = idleHandles.withLock({ $0.popLast() }) {
            halo_curl_easy_reset(handle.pointer)  // keeps the connection cache
            return handle
        }
        return halo_curl_easy_init().map(EasyHandle.init)
    }

    fileprivate func returnHandle(_ handle: EasyHandle) {
        let kept = idleHandles.withLock { handles -> Bool in
            guard handles.count < Self.maximumIdleHandles else { return false }
            handles.append(handle)
            return true
        }
        if !kept { halo_curl_easy_cleanup(handle.pointer) }
    }

    /// One transfer's inputs, handed to its thread.
    private struct TransferJob: @unchecked Sendable {
        let transport: CurlTransport
        let request: HTTPRequest
        let options: TransferOptions
        let context: TransferContext

        func run() -> Result<HTTPResponse, HaloError> {
            guard let handle = transport.takeHandle() else {
                let reason = halo_curl_open().map { String(cString: $0) } ?? "it could not create a handle"
                return .failure(.configuration(message: "libcurl is not usable: \(reason) (install libcurl4)"))
            }
            defer { transport.returnHandle(handle) }
            return context.perform(request, options: options, on: handle.pointer)
        }
    }
}

/// Receives the body of a 2xx answer as it arrives, so an answer of any size (a sync of a large
/// module) never sits in memory: the consumer parses and stores each block before libcurl reads
/// more, making the socket itself the back-pressure. Called on the transfer's own thread.
public protocol HTTPBodySink: AnyObject, Sendable {
    /// Called once with the status and (lower-cased) headers of a 2xx answer, before its first block.
    func receiveHead(status: Int, headers: [String: String]) throws(HaloError)
    /// One block of the body. Throwing aborts the transfer, which then fails with that error.
    func receive(_ block: UnsafeRawBufferPointer) throws(HaloError)
}

/// State shared between one transfer and libcurl's callbacks.
private final class TransferContext: @unchecked Sendable {
    let maximumBytes: Int
    /// Where a 2xx body goes when streaming; nil to keep the body.
    let sink: (any HTTPBodySink)?
    /// Set from the cancelling task; read by the progress callback on the transfer thread.
    let cancelled = Atomic<Bool>(false)
    // Touched only by the transfer thread:
    var body = Data()
    var headerLines: [String] = []
    /// The status of the current response, from its status line (known before the body arrives).
    var status = 0
    var exceededLimit = false
    var headDelivered = false
    /// What the sink threw: the transfer's outcome.
    var sinkError: HaloError?

    init(maximumBytes: Int, sink: (any HTTPBodySink)?) {
        self.maximumBytes = maximumBytes
        self.sink = sink
    }

    /// The sink, when this body is to be streamed (a 2xx answer of a streamed transfer).
    var streamingSink: (any HTTPBodySink)? { (200..<300).contains(status) ? sink : nil }

    /// Hands one block to the sink (the head first); false when the sink threw.
    func stream(_ block: UnsafeRawBufferPointer, to sink: any HTTPBodySink) -> Bool {
        do throws(HaloError) {
            if !headDelivered {
                headDelivered = true
                try sink.receiveHead(status: status, headers: parsedHeaders())
            }
            try sink.receive(block)
            return true
        } catch {
            sinkError = error
            return false
        }
    }

    func perform(_ request: HTTPRequest, options: TransferOptions, on curl: UnsafeMutableRawPointer) -> Result<HTTPResponse, HaloError> {
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { halo_curl_slist_free_all(headerList) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }

        _ = halo_curl_setopt_string(curl, CURLOPT_URL, request.url.absoluteString)
        _ = halo_curl_setopt_string(curl, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = halo_curl_setopt_long(curl, CURLOPT_NOSIGNAL, 1)
        _ = halo_curl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = halo_curl_setopt_string(curl, CURLOPT_ACCEPT_ENCODING, "")  // gzip/deflate, decoded by curl

        // Timeouts: connect and idle (< 1 byte/s) bound by the request timeout, total by the resource one.
        let requestSeconds = max(1, Int(options.timeoutIntervalForRequest.rounded(.up)))
        _ = halo_curl_setopt_long(curl, CURLOPT_CONNECTTIMEOUT, requestSeconds)
        _ = halo_curl_setopt_long(curl, CURLOPT_LOW_SPEED_LIMIT, 1)
        _ = halo_curl_setopt_long(curl, CURLOPT_LOW_SPEED_TIME, requestSeconds)
        _ = halo_curl_setopt_long(curl, CURLOPT_TIMEOUT_MS, max(1, Int(options.timeoutIntervalForResource * 1000)))
        if sink == nil {  // a streamed body is consumed as it comes: only kept bodies are capped
            _ = halo_curl_setopt_off_t(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(options.maximumResponseBytes))
        }

        if options.followsRedirects {
            // Plain http stays limited to loopback: only a loopback origin may redirect to http.
            _ = halo_curl_setopt_long(curl, CURLOPT_FOLLOWLOCATION, 1)
            _ = halo_curl_setopt_long(curl, CURLOPT_MAXREDIRS, 5)
            _ = halo_curl_setopt_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, request.url.isLoopbackHost ? "http,https" : "https")
        }

        switch options.trust {
        case .certificateAuthorities(let bundle):
            _ = halo_curl_setopt_long(curl, CURLOPT_SSL_VERIFYPEER, 1)
            _ = halo_curl_setopt_long(curl, CURLOPT_SSL_VERIFYHOST, 2)
            if let bundle {
                _ = halo_curl_setopt_string(curl, CURLOPT_CAINFO, bundle.path)
                _ = halo_curl_setopt_pointer(curl, CURLOPT_CAPATH, nil)  // only the bundle's authorities
            }
        case .pinned(let keys):
            // The pinned key replaces CA trust: a pinned self-signed server is accepted, any other refused.
            _ = halo_curl_setopt_long(curl, CURLOPT_SSL_VERIFYPEER, 0)
            _ = halo_curl_setopt_long(curl, CURLOPT_SSL_VERIFYHOST, 0)
            _ = halo_curl_setopt_string(curl, CURLOPT_PINNEDPUBLICKEY, keys.curlPinString)
        }

        switch request.method {
        case .get: _ = halo_curl_setopt_long(curl, CURLOPT_HTTPGET, 1)
        case .post: _ = halo_curl_setopt_long(curl, CURLOPT_POST, 1)
        default: _ = halo_curl_setopt_string(curl, CURLOPT_CUSTOMREQUEST, request.method.rawValue)
        }
        if let body = request.body, request.method != .get {
            _ = halo_curl_setopt_off_t(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            body.withUnsafeBytes { raw in
                _ = halo_curl_setopt_pointer(
                    curl, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(errorBuffer)))
            }
        } else if request.method == .post {
            _ = halo_curl_setopt_off_t(curl, CURLOPT_POSTFIELDSIZE_LARGE, 0)
            _ = halo_curl_setopt_string(curl, CURLOPT_COPYPOSTFIELDS, "")
        }
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            headerList = halo_curl_slist_append(headerList, "\(name): \(value)")
        }
        headerList = halo_curl_slist_append(headerList, "Expect:")  // no 100-continue round trip
        _ = halo_curl_setopt_pointer(curl, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))

        let this = Unmanaged.passUnretained(self).toOpaque()
        _ = halo_curl_setopt_data_callback(
            curl, CURLOPT_WRITEFUNCTION,
            { pointer, size, count, user in
                guard let user, let pointer else { return 0 }
                let context = Unmanaged<TransferContext>.fromOpaque(user).takeUnretainedValue()
                let length = size * count
                if let sink = context.streamingSink {
                    return context.stream(UnsafeRawBufferPointer(start: pointer, count: length), to: sink) ? length : 0
                }
                if context.body.count + length > context.maximumBytes {
                    context.exceededLimit = true
                    return 0  // aborts the transfer
                }
                context.body.append(UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: length)
                return length
            })
        _ = halo_curl_setopt_pointer(curl, CURLOPT_WRITEDATA, this)
        _ = halo_curl_setopt_data_callback(
            curl, CURLOPT_HEADERFUNCTION,
            { pointer, size, count, user in
                guard let user, let pointer else { return 0 }
                let context = Unmanaged<TransferContext>.fromOpaque(user).takeUnretainedValue()
                let length = size * count
                let line = String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
                if line.hasPrefix("HTTP/") {  // a new response (e.g. after 100)
                    context.headerLines.removeAll()
                    let parts = line.split(separator: " ")
                    context.status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
                }
                context.headerLines.append(line)
                return length
            })
        _ = halo_curl_setopt_pointer(curl, CURLOPT_HEADERDATA, this)
        _ = halo_curl_setopt_long(curl, CURLOPT_NOPROGRESS, 0)
        _ = halo_curl_setopt_xferinfo_callback(
            curl,
            { user, _, _, _, _ in
                guard let user else { return 0 }
                let context = Unmanaged<TransferContext>.fromOpaque(user).takeUnretainedValue()
                return context.cancelled.load(ordering: .relaxed) ? 1 : 0
            })
        _ = halo_curl_setopt_pointer(curl, CURLOPT_XFERINFODATA, this)

        if cancelled.load(ordering: .relaxed) { return .failure(.cancelled) }
        let code = halo_curl_easy_perform(curl)
        if let sinkError { return .failure(sinkError) }
        guard code == CURLE_OK else {
            return .failure(error(for: code, detail: String(cString: errorBuffer), url: request.url, options: options))
        }
        var status = 0
        _ = halo_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status)
        self.status = status
        if let sink = streamingSink, !headDelivered {  // a 2xx answer with an empty body
            headDelivered = true
            do throws(HaloError) { try sink.receiveHead(status: status, headers: parsedHeaders()) } catch { return .failure(error) }
        }
        return .success(HTTPResponse(statusCode: status, headers: parsedHeaders(), body: body))
    }

    private func error(for code: CURLcode, detail: String, url: URL, options: TransferOptions) -> HaloError {
        let reason = detail.isEmpty ? String(cString: halo_curl_easy_strerror(code)) : detail
        let host = url.host ?? url.absoluteString
        switch code {
        case CURLE_ABORTED_BY_CALLBACK where cancelled.load(ordering: .relaxed):
            return .cancelled
        case CURLE_WRITE_ERROR where exceededLimit, CURLE_FILESIZE_EXCEEDED:
            return .invalidResponse(status: nil, message: "The response from \(host) is larger than the \(maximumBytes)-byte limit")
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_PEER_FAILED_VERIFICATION:
            // Ask again without verifying, only to say what was presented (no request is sent).
            let presented = try? CertificateProbe.presentedCertificate(at: url, timeout: options.timeoutIntervalForRequest).get()
            return .sslPinningFailed(
                message: CertificateRefusal(
                    host: host, presented: presented, trust: options.trust, folder: options.certificatesFolder,
                    verifierReason: code == CURLE_PEER_FAILED_VERIFICATION ? reason : nil
                ).sentence)
        case CURLE_OPERATION_TIMEDOUT:
            return .network(message: "The request to \(host) timed out")
        default:
            return .network(message: "Cannot reach \(host): \(reason)")
        }
    }

    private func parsedHeaders() -> [String: String] {
        var headers: [String: String] = [:]
        for line in headerLines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return headers
    }
}
