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

    /// How many list items currently hold a bound row (tests use it to prove rows are virtualized).
    private(set) var boundCount = 0
    private var bound: Set<UInt> = []

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
        if bound.insert(UInt(bitPattern: item)).inserted { boundCount += 1 }
        bind(row, position)
    }

    /// Fills the bound rows in `range` again from their (new) data, in place: no row widget is
    /// replaced, so the keyboard focus, the selection and the scroll position stay where they are.
    /// Rows outside the screen are not bound; GTK binds them with the new data when they show.
    func rebind(_ range: Range<Int>) {
        rebind { range.contains($0) }
    }

    /// Fills the bound rows whose position passes `test` again (see `rebind(_:)`).
    func rebind(where test: (Int) -> Bool) {
        for item in bound {
            guard let row = rows[item], let listItem = UnsafeMutableRawPointer(bitPattern: item),
                let position = IndexListModel.position(ofItem: gtk_list_item_get_item(halo_list_item(listItem))),
                test(position)
            else { continue }
            bind(row, position)
        }
    }

    /// The rows GTK has bound: each one's position and the widget showing it.
    var boundRows: [(position: Int, widget: UnsafeMutablePointer<GtkWidget>)] {
        bound.compactMap { item in
            guard let listItem = UnsafeMutableRawPointer(bitPattern: item),
                let position = IndexListModel.position(ofItem: gtk_list_item_get_item(halo_list_item(listItem))),
                let child = gtk_list_item_get_child(halo_list_item(listItem))
            else { return nil }
            return (position, child)
        }
    }

    private func unbindItem(_ item: UnsafeMutableRawPointer?) {
        guard let item else { return }
        if bound.remove(UInt(bitPattern: item)) != nil { boundCount -= 1 }
    }
}
