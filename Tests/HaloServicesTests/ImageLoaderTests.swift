import Foundation
import XCTest

@testable import HaloServices

/// `ImageLoader` against a real HTTP server on loopback: cache, size limit, non-images, timeouts.
final class ImageLoaderTests: XCTestCase {
    private var server: StaticHTTPServer?

    override func tearDown() {
        server?.stop()
        super.tearDown()
    }

    private func startServer(_ routes: [String: StaticHTTPServer.Route]) throws -> StaticHTTPServer {
        let server = try StaticHTTPServer(routes: routes)
        self.server = server
        return server
    }

    func testDownloadsAnImageOnceThenServesItFromTheCacheWithoutHALOHeaders() async throws {
        let png = try TestImages.iconPNG()
        let server = try startServer(["/icon.png": .init(contentType: "image/png", body: png)])
        let loader = ImageLoader()
        let first = try await loader.fetchData(from: server.url("/icon.png"))
        XCTAssertEqual(first, png)
        let second = try await loader.fetchData(from: server.url("/icon.png"))
        XCTAssertEqual(second, png)
        XCTAssertEqual(server.requestCount("/icon.png"), 1, "the second fetch must come from the cache")
        let headers = try XCTUnwrap(server.requests.withLock { $0.first?.headers })
        XCTAssertNil(headers["authorization"], "no bearer token to image hosts")
        XCTAssertFalse(headers.keys.contains { $0.hasPrefix("x-halo") }, "\(headers)")
        XCTAssertEqual(headers["accept"], "image/*")
    }

    func testFollowsARedirectToTheImage() async throws {
        let png = try TestImages.iconPNG()
        let server = try startServer(["/icon.png": .init(contentType: "image/png", body: png)])
        server.setRoute("/id/1/240/160", .init(status: 302, contentType: "text/plain", location: server.url("/icon.png").absoluteString))
        let data = try await ImageLoader().fetchData(from: server.url("/id/1/240/160"))
        XCTAssertEqual(data, png)
        XCTAssertEqual(server.requestCount("/icon.png"), 1)
    }

    func testRefusesABodyOverTheLimitWithAClearError() async throws {
        let png = try TestImages.screenshotPNG()  // 174 kB
        let server = try startServer(["/big.png": .init(contentType: "image/png", body: png)])
        let loader = ImageLoader(maximumBytes: 64 * 1024)
        do {
            _ = try await loader.fetchData(from: server.url("/big.png"))
            XCTFail("a body over the limit must be refused")
        } catch {
            guard case .invalidResponse(_, let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("larger than the 65536-byte limit"), message)
        }
        XCTAssertNil(loader.cachedData(for: server.url("/big.png")))
    }

    func testRefusesABodyThatIsNotAnImageAndReportsHTTPErrors() async throws {
        let server = try startServer([
            "/page": .init(contentType: "text/html", body: Data("<html>Sign in</html>".utf8)),
            "/gone.png": .init(status: 404, contentType: "text/plain", body: Data("nope".utf8)),
        ])
        let loader = ImageLoader()
        do {
            _ = try await loader.fetchData(from: server.url("/page"))
            XCTFail("HTML is not an image")
        } catch {
            XCTAssertEqual(error, .invalidResponse(status: 200, message: "The file at 127.0.0.1 is not an image (text/html)"))
        }
        do {
            _ = try await loader.fetchData(from: server.url("/gone.png"))
            XCTFail("a 404 is a failure")
        } catch {
            XCTAssertEqual(error, .invalidResponse(status: 404, message: "127.0.0.1 answered HTTP 404 instead of the image"))
        }
        let ftp = try XCTUnwrap(URL(string: "ftp://127.0.0.1/x.png"))
        do {
            _ = try await loader.fetchData(from: ftp)
            XCTFail("only http(s)")
        } catch {
            guard case .invalidInput = error else { return XCTFail("\(error)") }
        }
    }

    func testAStalledHostTimesOut() async throws {
        let png = try TestImages.iconPNG()
        let server = try startServer(["/slow.png": .init(contentType: "image/png", body: png, delay: 5)])
        let loader = ImageLoader(timeout: 1)
        let started = Date()
        do {
            _ = try await loader.fetchData(from: server.url("/slow.png"))
            XCTFail("a stalled host must time out")
        } catch {
            XCTAssertEqual(error, .network(message: "The request to 127.0.0.1 timed out"))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 4)
    }

    func testCancellingTheTaskAbortsTheDownload() async throws {
        let png = try TestImages.iconPNG()
        let server = try startServer(["/slow.png": .init(contentType: "image/png", body: png, delay: 3)])
        let loader = ImageLoader()
        let url = server.url("/slow.png")
        let task = Task { () -> Result<Data, HaloError> in
            do throws(HaloError) { return .success(try await loader.fetchData(from: url)) } catch { return .failure(error) }
        }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.value
        XCTAssertEqual(result.error, .cancelled)
    }

    func testThumbnailAddressUsesCloudinaryTransformationOnlyForCloudinaryURLs() {
        XCTAssertEqual(
            ImageLoader.thumbnailAddress(for: "https://res.cloudinary.com/demo/image/upload/v1/kj.jpg", width: 240, height: 160),
            "https://res.cloudinary.com/demo/image/upload/w_240,h_160,c_fill/v1/kj.jpg")
        XCTAssertEqual(
            ImageLoader.thumbnailAddress(for: "https://picsum.photos/id/1/600/400", width: 240, height: 160),
            "https://picsum.photos/id/1/600/400")
    }

    func testLRUCacheEvictsTheLeastRecentlyUsedWhenOverCapacity() {
        var cache = LRUCache(capacityBytes: 10)
        cache.insert(Data(count: 4), for: "a")
        cache.insert(Data(count: 4), for: "b")
        XCTAssertNotNil(cache.value(for: "a"))  // a is now the most recent
        cache.insert(Data(count: 4), for: "c")  // 12 > 10: b goes
        XCTAssertEqual(cache.keys, ["a", "c"])
        XCTAssertEqual(cache.totalBytes, 8)
        cache.insert(Data(count: 11), for: "huge")  // larger than the whole cache: not kept
        XCTAssertEqual(cache.keys, ["a", "c"])
    }

    func testSniffsImageFormats() throws {
        XCTAssertEqual(ImageFormat(sniffing: try TestImages.iconPNG(), contentType: nil), .png)
        XCTAssertEqual(ImageFormat(sniffing: Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]), contentType: "image/jpeg"), .jpeg)
        XCTAssertEqual(ImageFormat(sniffing: Data("<svg/>".utf8), contentType: "image/svg+xml"), .svg)
        XCTAssertNil(ImageFormat(sniffing: Data("{\"error\":1}".utf8), contentType: "image/png"), "a JSON error labelled image/png")
    }
}

extension Result {
    fileprivate var error: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
