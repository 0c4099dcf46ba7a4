import Foundation
import Synchronization

/// Downloads images shown by content fields (thumbnails in an editor), with a size limit, a
/// timeout and an in-memory LRU cache so showing the same image again does not download it again.
///
/// Image addresses point anywhere (Cloudinary, a CDN, …), so the loader uses its own
/// `CurlTransport` and sends no HALO headers at all: the bearer token never leaves for a
/// third-party host. Plain `http` is refused except to loopback, as for every SDK transfer.
/// Redirects are followed (photo services redirect to their CDN), to https only.
public final class ImageLoader: Sendable {
    /// The loader the app shares, so every view profits from one cache.
    public static let shared = ImageLoader()

    /// Bodies larger than this are refused (the transfer is aborted as soon as it passes the limit).
    public let maximumBytes: Int
    /// Time allowed for the whole download (and for connecting, and without any data arriving).
    public let timeout: TimeInterval
    private let transport = CurlTransport()
    private let cache: Mutex<LRUCache>

    /// - Parameters:
    ///   - maximumBytes: the largest image accepted (10 MB by default).
    ///   - timeout: seconds allowed per download.
    ///   - cacheBytes: how many bytes of downloaded images stay in memory (least recently used go first).
    public init(maximumBytes: Int = 10 * 1024 * 1024, timeout: TimeInterval = 15, cacheBytes: Int = 48 * 1024 * 1024) {
        self.maximumBytes = maximumBytes
        self.timeout = timeout
        cache = Mutex(LRUCache(capacityBytes: cacheBytes))
    }

    /// The address to download for an image field's value shown at `width`×`height` pixels:
    /// the Cloudinary thumbnail transformation when `url` is a Cloudinary upload, else `url` itself.
    public static func thumbnailAddress(for url: String, width: Int, height: Int) -> String {
        CloudinaryURL(url: url).width(pixels: width).height(pixels: height).crop(mode: .fill).urlString
    }

    /// `text` as an address the loader downloads from (http or https, with a host).
    /// Throws `HaloError.invalidInput` with a sentence for anything else.
    public static func imageURL(_ text: String) throws(HaloError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            url.host != nil
        else { throw .invalidInput(message: "“\(text)” is not an http(s) image address") }
        return url
    }

    /// The bytes of the image at `url`, from the cache when it was downloaded before.
    ///
    /// Throws `HaloError.invalidInput` for text that is not an http(s) address,
    /// `.invalidResponse` for a non-2xx status, a body over `maximumBytes` or a body that is not
    /// an image, `.network` when the host cannot be reached or the download times out, and
    /// `.cancelled` when the calling task is cancelled (the transfer is aborted).
    public func fetchData(from url: URL) async throws(HaloError) -> Data {
        let key = url.absoluteString
        if let cached = cachedData(for: url) { return cached }
        _ = try Self.imageURL(key)
        // No HALO headers on purpose (see the type's comment).
        let request = HTTPRequest(method: .get, url: url, headers: ["Accept": "image/*"])
        let options = TransferOptions(
            timeoutIntervalForRequest: timeout, timeoutIntervalForResource: timeout,
            maximumResponseBytes: maximumBytes, followsRedirects: true)
        let response = try await transport.perform(request, options: options)
        let host = url.host ?? key
        guard response.isSuccess else {
            throw .invalidResponse(
                status: response.statusCode, message: "\(host) answered HTTP \(response.statusCode) instead of the image")
        }
        guard ImageFormat(sniffing: response.body, contentType: response.headers["content-type"]) != nil else {
            let type = response.headers["content-type"].map { " (\($0))" } ?? ""
            throw .invalidResponse(status: response.statusCode, message: "The file at \(host) is not an image\(type)")
        }
        cache.withLock { $0.insert(response.body, for: key) }
        return response.body
    }

    /// The cached bytes for `url`, if it was downloaded and is still in the cache.
    public func cachedData(for url: URL) -> Data? {
        cache.withLock { $0.value(for: url.absoluteString) }
    }

    /// Empties the cache.
    public func removeAllCachedImages() {
        cache.withLock { $0.removeAll() }
    }
}

/// The image formats GTK can decode that an image field can reasonably hold.
enum ImageFormat: Equatable {
    case png, jpeg, gif, webp, bmp, tiff, svg

    /// The format of `data`, from its first bytes; `contentType` only decides for SVG (text that
    /// has no magic number). Nil when the body is not an image (an HTML error page, JSON, …).
    init?(sniffing data: Data, contentType: String?) {
        let head = [UInt8](data.prefix(16))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts(Array("GIF8".utf8)) {
            self = .gif
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("BM".utf8)) {
            self = .bmp
        } else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) {
            self = .tiff
        } else if contentType?.lowercased().hasPrefix("image/svg+xml") == true {
            self = .svg
        } else {
            return nil
        }
    }
}

/// A least-recently-used cache of byte blobs bounded by their total size. Entries are few (tens
/// of thumbnails), so an ordered key array is simpler than a linked list and fast enough.
struct LRUCache {
    let capacityBytes: Int
    private var entries: [String: Data] = [:]
    /// Keys from least to most recently used.
    private var order: [String] = []
    private(set) var totalBytes = 0

    init(capacityBytes: Int) { self.capacityBytes = capacityBytes }

    mutating func value(for key: String) -> Data? {
        guard let data = entries[key] else { return nil }
        touch(key)
        return data
    }

    mutating func insert(_ data: Data, for key: String) {
        guard data.count <= capacityBytes else { return }  // would evict everything for one entry
        if let old = entries.updateValue(data, forKey: key) { totalBytes -= old.count }
        totalBytes += data.count
        touch(key)
        while totalBytes > capacityBytes, let oldest = order.first {
            order.removeFirst()
            totalBytes -= entries.removeValue(forKey: oldest)?.count ?? 0
        }
    }

    mutating func removeAll() {
        entries = [:]
        order = []
        totalBytes = 0
    }

    var keys: [String] { order }

    private mutating func touch(_ key: String) {
        if let index = order.firstIndex(of: key) { order.remove(at: index) }
        order.append(key)
    }
}
