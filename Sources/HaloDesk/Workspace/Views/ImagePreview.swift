import CAdw
import CGtk
import Foundation
import HaloServices

/// The thumbnail under an image field's entry: the image (its Cloudinary thumbnail when the
/// address is a Cloudinary upload) in a rounded 240×160 frame, a spinner while it downloads, and
/// a placeholder whose tooltip says why when it cannot be shown. The address stays visible in a
/// caption below, so a missing image can still be identified.
///
/// Downloads run off the main thread (`ImageLoader`); decoding happens here on the main thread.
/// Every new address bumps `generation`, and a finished download whose generation is stale is
/// dropped, so a slow image never lands after the user typed another address or left the instance.
@MainActor
final class ImagePreview {
    /// What the preview currently shows.
    enum State: Equatable {
        /// No address: the preview is hidden.
        case empty
        case loading
        /// A decoded image of this intrinsic size.
        case loaded(width: Int, height: Int)
        /// The placeholder, with the reason shown in its tooltip.
        case failed(reason: String)
    }

    /// Thumbnail size in pixels (also the size asked of Cloudinary).
    static let width = 240, height = 160
    /// Typing pauses this long before the new address is loaded.
    static let editDelay: Duration = .milliseconds(400)

    /// The frame and the caption, stacked vertically.
    let widget: Box
    let picture: Widget
    let placeholder: Widget
    let caption: Label
    private let frame: Stack
    private let spinner: Spinner
    private let loader: ImageLoader
    private let fieldName: String
    private(set) var state: State = .empty
    /// The address last asked for (the thumbnail address for Cloudinary images).
    private(set) var requestedAddress: String?
    private var generation = 0
    private var download: Task<Void, Never>?
    private var pendingEdit: Task<Void, Never>?

    init(fieldName: String, loader: ImageLoader) {
        self.fieldName = fieldName
        self.loader = loader
        widget = Box(vertical: true, spacing: 4)
        frame = Stack(sinking: UnsafeMutableRawPointer(gtk_stack_new()))
        picture = Widget(sinking: UnsafeMutableRawPointer(gtk_picture_new()))
        placeholder = Widget(sinking: UnsafeMutableRawPointer(gtk_image_new_from_icon_name("image-missing-symbolic")))
        spinner = Spinner(sinking: UnsafeMutableRawPointer(gtk_spinner_new()))
        caption = Label("", classes: ["dim-label", "caption"], wrap: true, selectable: true)

        gtk_picture_set_content_fit(OpaquePointer(picture.raw), GTK_CONTENT_FIT_COVER)
        gtk_picture_set_can_shrink(OpaquePointer(picture.raw), 1)
        picture.setAccessibleLabel("Image preview of \(fieldName)")
        gtk_image_set_pixel_size(OpaquePointer(placeholder.raw), 48)
        placeholder.addCSSClass("dim-label")
        for centered in [placeholder, spinner] as [Widget] {
            gtk_widget_set_halign(centered.widget, GTK_ALIGN_CENTER)
            gtk_widget_set_valign(centered.widget, GTK_ALIGN_CENTER)
        }
        spinner.setSizeRequest(width: 32, height: 32)

        frame.addPage(spinner, named: "loading")
        frame.addPage(picture, named: "image")
        frame.addPage(placeholder, named: "missing")
        frame.setSizeRequest(width: Self.width, height: Self.height)
        // Rounded like a card; the image is clipped to the corners.
        frame.addCSSClass("card")
        frame.addCSSClass("image-preview")
        gtk_widget_set_overflow(frame.widget, GTK_OVERFLOW_HIDDEN)
        // A GtkPicture asks for its image's full size; two clamps hold the frame at thumbnail size.
        let clamped = Self.clamp(Self.clamp(frame, to: Self.width, vertical: false), to: Self.height, vertical: true)
        gtk_widget_set_halign(clamped.widget, GTK_ALIGN_START)
        gtk_widget_set_margin_top(clamped.widget, 4)
        widget.append(clamped)
        widget.append(caption)
        widget.isVisible = false
    }

    /// `child` in an AdwClamp at most `size` pixels wide (or high).
    private static func clamp(_ child: Widget, to size: Int, vertical: Bool) -> Widget {
        let clamp = Widget(sinking: UnsafeMutableRawPointer(adw_clamp_new()))
        let adwClamp = OpaquePointer(clamp.raw)
        adw_clamp_set_maximum_size(adwClamp, gint(size))
        adw_clamp_set_tightening_threshold(adwClamp, gint(size))
        if vertical { gtk_orientable_set_orientation(OpaquePointer(clamp.raw), GTK_ORIENTATION_VERTICAL) }
        adw_clamp_set_child(adwClamp, child.widget)
        return clamp
    }

    /// The text under the image ("Image: <url>" or "Thumbnail: <Cloudinary thumbnail url>"); empty when hidden.
    var captionText: String { widget.isVisible ? caption.text : "" }

    /// Shows the image at `url` (an image field's value) at once, from the cache when possible.
    func show(url: String) {
        startLoading(url.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Shows `url` once the user pauses typing (`editDelay`); each call restarts the wait.
    func showAfterEditing(url: String) {
        pendingEdit?.cancel()
        pendingEdit = Task { [weak self] in
            try? await Task.sleep(for: Self.editDelay)
            guard !Task.isCancelled, let self else { return }
            self.pendingEdit = nil
            self.startLoading(url.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Stops any pending download or edit wait (the instance is being left); a late answer is ignored.
    func cancel() {
        generation += 1
        download?.cancel()
        download = nil
        pendingEdit?.cancel()
        pendingEdit = nil
        spinner.isSpinning = false
    }

    private func startLoading(_ url: String) {
        cancel()  // also drops a pending edit wait
        guard !url.isEmpty else {
            requestedAddress = nil
            state = .empty
            widget.isVisible = false
            return
        }
        widget.isVisible = true
        let address = ImageLoader.thumbnailAddress(for: url, width: Self.width, height: Self.height)
        requestedAddress = address
        caption.text = address == url ? "Image: \(url)" : "Thumbnail: \(address)"
        let target: URL
        do throws(HaloError) { target = try ImageLoader.imageURL(address) } catch { return fail(Self.reason(for: error)) }
        if let cached = loader.cachedData(for: target) { return display(cached) }

        state = .loading
        frame.visiblePage = "loading"
        spinner.isSpinning = true
        let generation = self.generation
        let loader = self.loader
        download = Task { [weak self] in
            let result: Result<Data, HaloError>
            do throws(HaloError) { result = .success(try await loader.fetchData(from: target)) } catch { result = .failure(error) }
            guard let self, self.generation == generation else { return }  // a newer address or another instance
            self.download = nil
            self.spinner.isSpinning = false
            switch result {
            case .success(let data): self.display(data)
            case .failure(.cancelled): return
            case .failure(let error): self.fail(Self.reason(for: error))
            }
        }
    }

    /// Decodes `data` (PNG, JPEG, … as GDK knows them) and shows it.
    private func display(_ data: Data) {
        let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        var error: UnsafeMutablePointer<GError>?
        guard let texture = gdk_texture_new_from_bytes(bytes, &error) else {
            let reason = swiftString(error?.pointee.message) ?? "unknown format"
            if let error { g_error_free(error) }
            return fail("The image could not be decoded: \(reason)")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        gtk_picture_set_paintable(OpaquePointer(picture.raw), halo_paintable(UnsafeMutableRawPointer(texture)))
        state = .loaded(width: Int(gdk_texture_get_width(texture)), height: Int(gdk_texture_get_height(texture)))
        placeholder.tooltip = nil
        frame.visiblePage = "image"
    }

    /// The sentence the placeholder's tooltip shows: the loader's own message, without the
    /// "Unexpected server response" framing meant for HALO API answers.
    private static func reason(for error: HaloError) -> String {
        if case .invalidResponse(_, let message) = error { return message }
        return error.description
    }

    private func fail(_ reason: String) {
        gtk_picture_set_paintable(OpaquePointer(picture.raw), nil)
        state = .failed(reason: reason)
        placeholder.tooltip = "Image unavailable: \(reason)"
        placeholder.setAccessibleLabel("No preview of \(fieldName)")
        placeholder.setAccessibleDescription(reason)
        frame.visiblePage = "missing"
    }

    /// The intrinsic size of what the picture shows (nil when it shows nothing): what GTK paints,
    /// independent of `state`.
    var paintableSize: (width: Int, height: Int)? {
        guard let paintable = gtk_picture_get_paintable(OpaquePointer(picture.raw)) else { return nil }
        return (Int(gdk_paintable_get_intrinsic_width(paintable)), Int(gdk_paintable_get_intrinsic_height(paintable)))
    }

    /// The page on display: "loading", "image" or "missing".
    var visiblePage: String? { frame.visiblePage }
}
