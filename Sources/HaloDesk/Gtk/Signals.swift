import CGtk

// Connecting Swift closures to GObject signals.
//
// The closure is boxed in a class and handed to GLib retained; GLib calls `releaseBox` (the destroy
// notify) when the handler is disconnected or the object finalizes, which drops the box and
// everything the closure captured. Each C signal signature needs its own `@convention(c)`
// trampoline; trampolines capture nothing and unwrap the box inside `MainActor.assumeIsolated`
// (GTK emits signals on the main thread; unwrapping outside trips Swift 6 region checking).

/// Holds a signal handler closure for the lifetime of the connection.
final class SignalHandlerBox<Handler> {
    let handler: Handler
    init(_ handler: Handler) { self.handler = handler }
}

/// A live signal connection; `disconnect()` frees the handler's closure.
@MainActor
struct SignalConnection {
    fileprivate let instance: UnsafeMutableRawPointer
    let handlerID: UInt

    func disconnect() {
        if g_signal_handler_is_connected(instance, gulong(handlerID)) != 0 {
            g_signal_handler_disconnect(instance, gulong(handlerID))
        }
    }
}

private let releaseBox: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
    guard let data else { return }
    Unmanaged<AnyObject>.fromOpaque(data).release()
}

private typealias VoidHandler = @MainActor () -> Void
private typealias PointerHandler = @MainActor (UnsafeMutableRawPointer?) -> Void
private typealias UIntHandler = @MainActor (UInt32) -> Void
private typealias BoolHandler = @MainActor () -> Bool
private typealias UIntPairHandler = @MainActor (UInt32, UInt32) -> Void
private typealias FlagToBoolHandler = @MainActor (Bool) -> Bool

// Trampolines receive the box address as an integer inside the isolated closure: raw pointers
// are not Sendable.

// `void handler(GObject *self, gpointer user_data)`: clicked, activate, changed, destroy, …
private let voidTrampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
    let box = UInt(bitPattern: data)
    MainActor.assumeIsolated { handlerBox(VoidHandler.self, box)?() }
}

// `void handler(GObject *self, gpointer arg, gpointer user_data)`: notify::*, GSimpleAction::activate, …
private let pointerTrampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = {
    _, argument, data in
    let box = UInt(bitPattern: data), argument = UInt(bitPattern: argument)
    MainActor.assumeIsolated { handlerBox(PointerHandler.self, box)?(UnsafeMutableRawPointer(bitPattern: argument)) }
}

// `void handler(GObject *self, guint arg, gpointer user_data)`: GtkColumnView::activate, …
private let uintTrampoline: @convention(c) (UnsafeMutableRawPointer?, UInt32, UnsafeMutableRawPointer?) -> Void = { _, argument, data in
    let box = UInt(bitPattern: data)
    MainActor.assumeIsolated { handlerBox(UIntHandler.self, box)?(argument) }
}

// `void handler(GObject *self, guint a, guint b, gpointer user_data)`: GtkSelectionModel::selection-changed, …
private let uintPairTrampoline: @convention(c) (UnsafeMutableRawPointer?, UInt32, UInt32, UnsafeMutableRawPointer?) -> Void = {
    _, first, second, data in
    let box = UInt(bitPattern: data)
    MainActor.assumeIsolated { handlerBox(UIntPairHandler.self, box)?(first, second) }
}

// `gboolean handler(GObject *self, gpointer user_data)`: GtkWindow::close-request, …
private let boolTrampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
    let box = UInt(bitPattern: data)
    return MainActor.assumeIsolated { handlerBox(BoolHandler.self, box)?() ?? false } ? 1 : 0
}

// `gboolean handler(GObject *self, gboolean arg, gpointer user_data)`: GtkSwitch::state-set, …
private let flagToBoolTrampoline: @convention(c) (UnsafeMutableRawPointer?, gboolean, UnsafeMutableRawPointer?) -> gboolean = {
    _, flag, data in
    let box = UInt(bitPattern: data)
    return MainActor.assumeIsolated { handlerBox(FlagToBoolHandler.self, box)?(flag != 0) ?? false } ? 1 : 0
}

// `gboolean handler(GtkWidget *self, gint x, gint y, gboolean keyboard, GtkTooltip *tooltip, gpointer user_data)`:
// GtkWidget::query-tooltip. The handler gives the text, or nil for no tooltip.
private typealias TooltipHandler = @MainActor () -> String?
private let queryTooltipTrampoline:
    @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, gboolean, OpaquePointer?, UnsafeMutableRawPointer?) -> gboolean = {
        _, _, _, _, tooltip, data in
        let box = UInt(bitPattern: data)
        guard let tooltip, let text = MainActor.assumeIsolated({ handlerBox(TooltipHandler.self, box)?() }) else { return 0 }
        gtk_tooltip_set_text(tooltip, text)
        return 1
    }

/// The handler stored at `address` (the user data GLib passes back to a trampoline).
@MainActor
private func handlerBox<Handler>(_ type: Handler.Type, _ address: UInt) -> Handler? {
    guard let pointer = UnsafeMutableRawPointer(bitPattern: address) else { return nil }
    return Unmanaged<SignalHandlerBox<Handler>>.fromOpaque(pointer).takeUnretainedValue().handler
}

@MainActor
private func connect<Handler>(
    _ instance: UnsafeMutableRawPointer, _ signal: String, _ trampoline: GCallback,
    _ handler: Handler
) -> SignalConnection {
    let box = Unmanaged.passRetained(SignalHandlerBox(handler) as AnyObject).toOpaque()
    let id = halo_signal_connect(instance, signal, trampoline, box, releaseBox)
    return SignalConnection(instance: instance, handlerID: UInt(id))
}

extension GObjectRef {
    /// Connects a handler for a signal whose C handler takes no arguments besides the emitter.
    @discardableResult
    func on(_ signal: String, _ handler: @escaping @MainActor () -> Void) -> SignalConnection {
        connect(raw, signal, unsafeBitCast(voidTrampoline, to: GCallback.self), handler as VoidHandler)
    }

    /// Connects a handler for a signal with one pointer argument (a GParamSpec, a GVariant, …).
    @discardableResult
    func onPointer(_ signal: String, _ handler: @escaping @MainActor (UnsafeMutableRawPointer?) -> Void) -> SignalConnection {
        connect(raw, signal, unsafeBitCast(pointerTrampoline, to: GCallback.self), handler as PointerHandler)
    }

    /// Connects a handler for a signal with one `guint` argument (a list position, …).
    @discardableResult
    func onUInt(_ signal: String, _ handler: @escaping @MainActor (UInt32) -> Void) -> SignalConnection {
        connect(raw, signal, unsafeBitCast(uintTrampoline, to: GCallback.self), handler as UIntHandler)
    }

    /// Connects a handler for a signal with two `guint` arguments (position, count, …).
    @discardableResult
    func onUIntPair(_ signal: String, _ handler: @escaping @MainActor (UInt32, UInt32) -> Void) -> SignalConnection {
        connect(raw, signal, unsafeBitCast(uintPairTrampoline, to: GCallback.self), handler as UIntPairHandler)
    }

    /// Connects a handler whose boolean result GTK uses (true = handled / stop).
    @discardableResult
    func onReturningBool(_ signal: String, _ handler: @escaping @MainActor () -> Bool) -> SignalConnection {
        connect(raw, signal, unsafeBitCast(boolTrampoline, to: GCallback.self), handler as BoolHandler)
    }

    /// Connects a handler for a signal with one boolean argument whose boolean result GTK uses.
    @discardableResult
    func onReturningBoolWithFlag(_ signal: String, _ handler: @escaping @MainActor (Bool) -> Bool) -> SignalConnection {
        connect(raw, signal, unsafeBitCast(flagToBoolTrampoline, to: GCallback.self), handler as FlagToBoolHandler)
    }

    /// Makes the widget's tooltip whatever `text` answers when GTK is about to show one (nil: none).
    /// Unlike setting the tooltip text, nothing is done until the pointer rests on the widget: on
    /// X11 each `gtk_widget_set_tooltip_text` asks the X server where the pointer is, a round trip
    /// per call (list cells are bound by the hundred).
    @discardableResult
    func onQueryTooltip(_ text: @escaping @MainActor () -> String?) -> SignalConnection {
        gtk_widget_set_has_tooltip(halo_widget(raw), 1)
        return connect(raw, "query-tooltip", unsafeBitCast(queryTooltipTrampoline, to: GCallback.self), text as TooltipHandler)
    }

    /// Emits a signal that has no arguments and no return value (e.g. `clicked`), synchronously.
    func emit(_ signal: String) {
        halo_signal_emit_void(raw, signal)
    }
}
