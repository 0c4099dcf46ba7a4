import CGtk
import Foundation

/// GTK 4.8's file chooser (a portal's where the desktop has one), to open or save one file.
@MainActor
final class FileChooser: GObjectRef {
    override class var gType: GType { gtk_file_chooser_native_get_type() }

    /// Choosers waiting for their answer (GTK does not hold them).
    private static var open: [ObjectIdentifier: FileChooser] = [:]

    /// Asks where to save (`suggestedName` set) or which file to open; `done` gets the file's URL,
    /// or nil when the user cancels.
    static func choose(
        title: String, saving suggestedName: String? = nil, accept: String, parent: Window, done: @escaping @MainActor (URL?) -> Void
    ) {
        let action = suggestedName == nil ? GTK_FILE_CHOOSER_ACTION_OPEN : GTK_FILE_CHOOSER_ACTION_SAVE
        let chooser = FileChooser(
            adopting: UnsafeMutableRawPointer(gtk_file_chooser_native_new(title, parent.window, action, accept, "_Cancel")))
        let fileChooser = OpaquePointer(chooser.raw)
        if let suggestedName { gtk_file_chooser_set_current_name(fileChooser, suggestedName) }
        gtk_native_dialog_set_modal(chooser.raw.assumingMemoryBound(to: GtkNativeDialog.self), 1)
        open[ObjectIdentifier(chooser)] = chooser
        chooser.onUInt("response") { [weak chooser] response in
            guard let chooser else { return }
            var url: URL?
            if Int32(bitPattern: response) == GTK_RESPONSE_ACCEPT.rawValue, let file = gtk_file_chooser_get_file(fileChooser) {
                if let path = g_file_get_path(file) {
                    url = URL(fileURLWithPath: String(cString: path))
                    g_free(path)
                }
                g_object_unref(UnsafeMutableRawPointer(file))
            }
            open[ObjectIdentifier(chooser)] = nil
            done(url)
        }
        gtk_native_dialog_show(chooser.raw.assumingMemoryBound(to: GtkNativeDialog.self))
    }
}
