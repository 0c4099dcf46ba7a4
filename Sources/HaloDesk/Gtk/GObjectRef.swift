import CGtk

/// One strong reference to a GObject, owned by main-actor Swift code.
///
/// Fresh widgets carry a *floating* reference; `init(sinking:)` converts it into ours so GTK
/// containers that later take the widget don't steal it. The reference is dropped in an isolated
/// deinit, so the unref (and any finalization it triggers) happens on the main thread.
@MainActor
class GObjectRef {
    /// The underlying `GObject*`.
    let raw: UnsafeMutableRawPointer

    /// Takes ownership of a new object, sinking a floating reference if it has one.
    init(sinking raw: UnsafeMutableRawPointer) {
        self.raw = raw
        g_object_ref_sink(raw)
    }

    /// Adds a reference to an object someone else owns (e.g. one a GtkBuilder created).
    required init(retaining raw: UnsafeMutableRawPointer) {
        self.raw = raw
        g_object_ref(raw)
    }

    /// Adopts a reference the caller already owns (a `transfer full` return value).
    init(adopting raw: UnsafeMutableRawPointer) {
        self.raw = raw
    }

    isolated deinit {
        g_object_unref(raw)
    }

    var object: UnsafeMutablePointer<GObject> { halo_object(raw) }

    /// The GType this wrapper's methods assume (each wrapper overrides it): `Builder.object`
    /// checks it, so a wrong type in a `.ui` file is an error naming it, not undefined behaviour.
    class var gType: GType { g_object_get_type() }

    /// Whether `raw` is an instance of `type` (or implements it, for an interface).
    static func instance(_ raw: UnsafeMutableRawPointer, isA type: GType) -> Bool {
        g_type_check_instance_is_a(raw.assumingMemoryBound(to: GTypeInstance.self), type) != 0
    }

    /// The GType name of the object `raw` points to (e.g. `GtkButton`).
    static func typeName(of raw: UnsafeMutableRawPointer) -> String {
        swiftString(g_type_name(raw.assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee.g_type)) ?? "?"
    }

    /// Sets a boolean or string GObject property by name (g_object_set is variadic in C).
    func setProperty(_ name: String, _ value: Bool) { halo_object_set_bool(raw, name, value ? 1 : 0) }
    func setProperty(_ name: String, _ value: String) { halo_object_set_string(raw, name, value) }
}

/// Converts a C string GTK owns into a Swift string (nil stays nil).
func swiftString(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
}
