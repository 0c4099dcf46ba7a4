import CGtk

/// A `GtkSignalListItemFactory` driven by Swift closures.
///
/// `makeRow` builds a row's widgets once per recycled list item; `bind` fills them for a row
/// position (from an `IndexListModel`). Row objects are kept per list item and dropped on teardown.
@MainActor
final class ListItemFactory<Row: AnyObject> {
    let factory: GObjectRef
    private var rows: [UInt: Row] = [:]
    private let makeRow: @MainActor () -> (row: Row, widget: Widget)
    private let bind: @MainActor (Row, Int) -> Void

    /// The list items currently holding a bound row.
    private var bound: Set<UInt> = []
    /// How many list items currently hold a bound row (tests use it to prove rows are virtualized).
    var boundCount: Int { bound.count }

    init(makeRow: @escaping @MainActor () -> (row: Row, widget: Widget), bind: @escaping @MainActor (Row, Int) -> Void) {
        factory = GObjectRef(adopting: UnsafeMutableRawPointer(gtk_signal_list_item_factory_new()))
        self.makeRow = makeRow
        self.bind = bind
        factory.onPointer("setup") { [unowned self] item in self.setup(item) }
        factory.onPointer("bind") { [unowned self] item in self.bindItem(item) }
        factory.onPointer("unbind") { [unowned self] item in self.unbindItem(item) }
        factory.onPointer("teardown") { [unowned self] item in
            guard let item else { return }
            self.rows[UInt(bitPattern: item)] = nil
        }
    }

    private func setup(_ item: UnsafeMutableRawPointer?) {
        guard let item else { return }
        let (row, widget) = makeRow()
        rows[UInt(bitPattern: item)] = row
        gtk_list_item_set_child(halo_list_item(item), widget.widget)
    }

    private func bindItem(_ item: UnsafeMutableRawPointer?) {
        guard let item, let row = rows[UInt(bitPattern: item)],
            let position = IndexListModel.position(ofItem: gtk_list_item_get_item(halo_list_item(item)))
        else { return }
        bound.insert(UInt(bitPattern: item))
        bind(row, position)
    }

    /// Fills the bound rows whose position passes `test` again from their (new) data, in place: no
    /// row widget is replaced, so the keyboard focus, the selection and the scroll position stay
    /// where they are. Rows outside the screen are not bound; GTK binds them with the new data when
    /// they show.
    func rebind(where test: (Int) -> Bool) {
        for (item, position) in boundItems where test(position) {
            if let row = rows[UInt(bitPattern: item)] { bind(row, position) }
        }
    }

    /// The rows GTK has bound: each one's position and the widget showing it.
    var boundRows: [(position: Int, widget: UnsafeMutablePointer<GtkWidget>)] {
        boundItems.compactMap { item, position in gtk_list_item_get_child(halo_list_item(item)).map { (position, $0) } }
    }

    /// The bound list items and the row positions they show.
    private var boundItems: [(item: UnsafeMutableRawPointer, position: Int)] {
        bound.compactMap { key in
            guard let item = UnsafeMutableRawPointer(bitPattern: key),
                let position = IndexListModel.position(ofItem: gtk_list_item_get_item(halo_list_item(item)))
            else { return nil }
            return (item, position)
        }
    }

    private func unbindItem(_ item: UnsafeMutableRawPointer?) {
        guard let item else { return }
        bound.remove(UInt(bitPattern: item))
    }
}
