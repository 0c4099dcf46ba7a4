import CAdw
import CGtk

/// A GtkListBox.
@MainActor
final class ListBox: Widget {
    override class var gType: GType { gtk_list_box_get_type() }

    /// Puts `row` at `position` (-1: at the end).
    func insert(_ row: Widget, at position: Int) { gtk_list_box_insert(OpaquePointer(raw), row.widget, gint(position)) }

    func remove(_ row: Widget) { gtk_list_box_remove(OpaquePointer(raw), row.widget) }

    /// `row-selected`: the index of the newly selected row, or nil when none is selected.
    @discardableResult
    func onRowSelected(_ handler: @escaping @MainActor (Int?) -> Void) -> SignalConnection {
        onPointer("row-selected") { row in
            handler(row.map { Int(gtk_list_box_row_get_index($0.assumingMemoryBound(to: GtkListBoxRow.self))) })
        }
    }
}

/// A GtkSpinButton.
@MainActor
final class SpinButton: Widget {
    override class var gType: GType { gtk_spin_button_get_type() }

    private var spin: OpaquePointer { OpaquePointer(raw) }

    var value: Double {
        get { gtk_spin_button_get_value(spin) }
        set { gtk_spin_button_set_value(spin, newValue) }
    }

    /// `notify::value`: the value changed (typed, arrows, keys or `value`).
    @discardableResult
    func onValueChanged(_ handler: @escaping @MainActor () -> Void) -> SignalConnection {
        onPointer("notify::value") { _ in handler() }
    }
}

/// The AdwApplication (a GApplication): its life-cycle signals.
@MainActor
final class Application: GObjectRef {
    override class var gType: GType { adw_application_get_type() }

    /// A new application with `id` (`adw_application_new`).
    convenience init(id: String, flags: GApplicationFlags) {
        self.init(adopting: UnsafeMutableRawPointer(adw_application_new(id, flags)))
    }

    /// `startup`: once, before the first `activate`.
    @discardableResult
    func onStartup(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("startup", handler) }

    /// `activate`: the application was launched or raised.
    @discardableResult
    func onActivate(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("activate", handler) }
}
