import CGtk

/// Loads a GtkBuilder `.ui` file from `Resources/ui/` and hands out its objects, typed.
@MainActor
final class Builder {
    struct LoadError: Error, CustomStringConvertible {
        let description: String
    }

    private let builder: GObjectRef
    /// The file's name, for error messages.
    private let fileName: String

    /// Parses `Resources/ui/<name>.ui`. A missing or invalid file is an error, never an abort
    /// (`gtk_builder_new_from_file` would abort the process).
    init(ui name: String) throws {
        fileName = name + ".ui"
        let path = AppResources.uiFile(name)
        guard let raw = gtk_builder_new() else { throw LoadError(description: "could not create a GtkBuilder") }
        builder = GObjectRef(adopting: UnsafeMutableRawPointer(raw))
        var error: UnsafeMutablePointer<GError>?
        if gtk_builder_add_from_file(raw, path, &error) == 0 {
            let message = swiftString(error?.pointee.message) ?? "unknown error"
            g_clear_error(&error)
            throw LoadError(description: "cannot load \(path): \(message)")
        }
    }

    /// The object with `id` in the file, wrapped as `T` (which adds its own reference). An object
    /// of another GType than `T` expects is an error naming the file, the id and both types.
    func object<T: GObjectRef>(_ id: String, as type: T.Type = T.self) throws -> T {
        guard let object = gtk_builder_get_object(OpaquePointer(builder.raw), id) else {
            throw LoadError(description: "\(fileName): no object with id '\(id)'")
        }
        let raw = UnsafeMutableRawPointer(object)
        guard GObjectRef.instance(raw, isA: T.gType) else {
            let expected = swiftString(g_type_name(T.gType)) ?? "?"
            throw LoadError(
                description:
                    "\(fileName): '\(id)' is a \(GObjectRef.typeName(of: raw)), but the code reads it as \(T.self) (\(expected))")
        }
        return T(retaining: raw)
    }
}
