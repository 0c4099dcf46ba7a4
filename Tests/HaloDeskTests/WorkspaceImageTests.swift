import CAdw
import CGtk
import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// Image fields in the detail pane: real thumbnails downloaded from an HTTP server on loopback,
/// the placeholder with its reason, the cache, stale downloads and the debounced edit.
final class WorkspaceImageTests: XCTestCase {
    func testImageFieldShowsThumbnailsPlaceholdersAndIgnoresStaleDownloads() throws {
        try MainActor.assumeIsolated {
            let png = try TestImages.screenshotPNG()
            var huge = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            huge.append(Data(count: 11 * 1024 * 1024))
            let images = try StaticHTTPServer(routes: [
                "/photo.png": .init(contentType: "image/png", body: png),
                "/slow.png": .init(contentType: "image/png", body: try TestImages.iconPNG(), delay: 1.5),
                "/huge.png": .init(contentType: "image/png", body: huge),
                "/photo.jpg": .init(contentType: "image/jpeg", body: try Self.blueJPEG(width: 320, height: 200)),
            ])
            defer { images.stop() }
            ImageLoader.shared.removeAllCachedImages()
            let harness = try WorkspaceHarness()
            defer { harness.tearDown() }
            let view = harness.view

            // Three authors point their photo at the test server: an image, a 404 and a slow one.
            let authors = try harness.serverInstances(module: "Authors").sorted { $0.name < $1.name }
            XCTAssertGreaterThanOrEqual(authors.count, 3)
            let paths = ["/photo.png", "/missing.png", "/slow.png"]
            let checker = harness.checker
            for (author, path) in zip(authors, paths) {
                var edited = author
                edited.values["photo"] = .string(images.url(path).absoluteString)
                let changed = edited
                _ = try WorkspaceHarness.wait { try await checker.content.save(changed) }
            }
            try harness.openModule("Authors")
            @MainActor func open(_ author: ContentInstance) throws {
                XCTAssertTrue(harness.pump { (0..<10).contains { view.pager.instance(at: $0) != nil } })
                let row = try XCTUnwrap((0..<10).first { view.pager.instance(at: $0)?.id == author.id }, "\(author.name) not listed")
                view.table.columnView.select([row])
                XCTAssertTrue(harness.pump { view.editor.instance?.id == author.id }, "\(author.name) not opened")
            }

            // A real image: the picture paints the PNG at its intrinsic size.
            try open(authors[0])
            let photo = try XCTUnwrap(view.editor.imagePreviews["photo"])
            XCTAssertTrue(harness.pump { photo.state != .loading }, "the image did not load")
            XCTAssertEqual(photo.state, .loaded(width: TestImages.screenshotSize.width, height: TestImages.screenshotSize.height))
            let size = try XCTUnwrap(photo.paintableSize)
            XCTAssertEqual(size.width, TestImages.screenshotSize.width)
            XCTAssertEqual(size.height, TestImages.screenshotSize.height)
            XCTAssertEqual(photo.visiblePage, "image")
            XCTAssertEqual(view.editor.imageCaptions["photo"], "Image: \(images.url("/photo.png").absoluteString)")
            XCTAssertNil(images.requests.withLock { $0.first?.headers["authorization"] }, "no HALO token to image hosts")
            try harness.screenshots(name: "workspace-image")

            // A 404: the placeholder says why; the caption stays.
            try open(authors[1])
            let missing = try XCTUnwrap(view.editor.imagePreviews["photo"])
            XCTAssertTrue(harness.pump { missing.state != .loading })
            XCTAssertEqual(missing.state, .failed(reason: "127.0.0.1 answered HTTP 404 instead of the image"))
            XCTAssertEqual(missing.visiblePage, "missing")
            XCTAssertEqual(missing.placeholder.tooltip, "Image unavailable: 127.0.0.1 answered HTTP 404 instead of the image")
            XCTAssertNil(missing.paintableSize)
            XCTAssertEqual(view.editor.imageCaptions["photo"], "Image: \(images.url("/missing.png").absoluteString)")
            try harness.screenshots(name: "workspace-image-missing")

            // Back to the first author: straight from the cache, no second download.
            try open(authors[0])
            XCTAssertEqual(view.editor.imagePreviews["photo"]?.state, .loaded(width: 1190, height: 750))
            XCTAssertEqual(images.requestCount("/photo.png"), 1)

            // A slow image left before it arrives never shows up, here or in its old preview.
            try open(authors[2])
            let slow = try XCTUnwrap(view.editor.imagePreviews["photo"])
            XCTAssertEqual(slow.state, .loading)
            XCTAssertEqual(slow.visiblePage, "loading")
            try open(authors[0])
            harness.pump(timeout: 2) { false }  // past the slow answer
            XCTAssertEqual(slow.state, .loading, "a stale download must be ignored")
            XCTAssertNil(slow.paintableSize)
            let current = try XCTUnwrap(view.editor.imagePreviews["photo"])
            XCTAssertEqual(current.paintableSize?.width, 1190)
            XCTAssertEqual(view.editor.instance?.id, authors[0].id)

            // Editing the address reloads the preview after a pause; an image over 10 MB is refused.
            let entry = try XCTUnwrap(view.editor.fieldEditor(named: "photo", as: EntryFieldEditor.self)?.entry)
            entry.text = images.url("/huge.png").absoluteString
            XCTAssertEqual(current.state, .loaded(width: 1190, height: 750), "no reload while typing")
            XCTAssertTrue(harness.pump { current.state != .loaded(width: 1190, height: 750) && current.state != .loading })
            guard case .failed(let reason) = current.state else { return XCTFail("\(current.state)") }
            XCTAssertEqual(reason, "The response from 127.0.0.1 is larger than the 10485760-byte limit")
            XCTAssertEqual(current.captionText, "Image: \(images.url("/huge.png").absoluteString)")
            entry.text = "https://res.cloudinary.com/demo/image/upload/v1/kj.jpg"
            XCTAssertTrue(harness.pump { current.requestedAddress?.contains("w_240,h_160") == true })
            XCTAssertEqual(current.captionText, "Thumbnail: https://res.cloudinary.com/demo/image/upload/w_240,h_160,c_fill/v1/kj.jpg")
            entry.text = images.url("/photo.jpg").absoluteString
            XCTAssertTrue(harness.pump { current.state == .loaded(width: 320, height: 200) }, "JPEG: \(current.state)")
            XCTAssertEqual(current.paintableSize?.width, 320)
            XCTAssertEqual(current.paintableSize?.height, 200)
        }
    }

    /// A real JPEG file, encoded by gdk-pixbuf: a blue `width`×`height` picture.
    @MainActor
    private static func blueJPEG(width: Int, height: Int) throws -> Data {
        let pixbuf = try XCTUnwrap(gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, gint(width), gint(height)))
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        gdk_pixbuf_fill(pixbuf, 0x3584_E4FF)
        var buffer: UnsafeMutablePointer<gchar>?
        var size: gsize = 0
        var error: UnsafeMutablePointer<GError>?
        guard gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &size, "jpeg", nil, nil, &error) != 0, let buffer else {
            throw XCTSkip("gdk-pixbuf cannot write JPEG: \(swiftString(error?.pointee.message) ?? "?")")
        }
        defer { g_free(buffer) }
        let data = Data(bytes: buffer, count: Int(size))
        XCTAssertEqual(Array(data.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG starts with SOI")
        return data
    }
}
