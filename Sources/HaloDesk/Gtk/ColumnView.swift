import CGtk

/// A `GtkColumnView` (declared with its columns in a `.ui` file) over an `IndexListModel` with
/// multiple selection, one closure factory per column, and header-click sorting reported as
/// (column key, ascending) for a server-side sort.
@MainActor
final class ColumnView: Widget {
    override class var gType: GType { gtk_column_view_get_type() }

    /// The GtkMultiSelection wrapped around the row-position model.
    let selection: GObjectRef
    private var columns: [(column: GObjectRef, key: String)] = []

    private init(sinking raw: UnsafeMutableRawPointer, selection: GObjectRef) {
        self.selection = selection
        super.init(sinking: raw)
        gtk_column_view_set_show_row_separators(halo_column_view(raw), 1)
    }

    required init(retaining raw: UnsafeMutableRawPointer) {
        selection = GObjectRef(retaining: UnsafeMutableRawPointer(gtk_column_view_get_model(halo_column_view(raw))))
        super.init(retaining: raw)
    }

    private var selectionModel: OpaquePointer { halo_selection_model(selection.raw) }

    /// Wraps a column view loaded from a `.ui` file (columns declared there) and shows `model` in it.
    convenience init(loaded view: Widget, model: IndexListModel) {
        g_object_ref(model.list.raw)  // gtk_multi_selection_new takes ownership of the model
        let selection = GObjectRef(adopting: UnsafeMutableRawPointer(gtk_multi_selection_new(model.model)))
        gtk_column_view_set_model(halo_column_view(view.raw), halo_selection_model(selection.raw))  // adds its own reference
        self.init(sinking: view.raw, selection: selection)
    }

    /// Gives a column of this view (e.g. one declared in a `.ui` file, whose title and widths
    /// live there) its cell factory, and a sorter when `sortKey` makes its header sort the list.
    func configureColumn<Row>(_ column: GObjectRef, factory: ListItemFactory<Row>, sortKey: String?) {
        let columnPointer = OpaquePointer(column.raw)
        gtk_column_view_column_set_factory(columnPointer, halo_list_item_factory(factory.factory.raw))
        if let sortKey {
            let index = columns.count + 1
            let sorter = gtk_custom_sorter_new(sortProbe, UnsafeMutableRawPointer(bitPattern: index), nil)
            gtk_column_view_column_set_sorter(columnPointer, halo_sorter(UnsafeMutableRawPointer(sorter)))
            g_object_unref(UnsafeMutableRawPointer(sorter))
            columns.append((column, sortKey))
        } else {
            columns.append((column, ""))
        }
        // The factory's Swift side must outlive the GTK column view: list items are torn down while
        // the view is disposed, possibly after this wrapper is gone. The view's GObject data owns it.
        let box = Unmanaged.passRetained(factory as AnyObject).toOpaque()
        g_object_set_data_full(halo_object(raw), "halo-column-factory-\(columns.count)", box, releaseRetainedObject)
    }

    /// The header the user sorted by, as (sort key, ascending), or nil when unsorted.
    ///
    /// GTK 4.8 has no getter for the primary sort column (added in 4.10), so we ask the view's
    /// sorter to compare two items: it consults the primary column's sorter first, whose compare
    /// function records which column it is and answers "smaller"; a descending column flips that.
    var sortState: (key: String, ascending: Bool)? {
        guard let sorter = gtk_column_view_get_sorter(halo_column_view(raw)) else { return nil }
        let first = gtk_string_object_new("a"), second = gtk_string_object_new("b")
        defer { g_object_unref(UnsafeMutableRawPointer(first)); g_object_unref(UnsafeMutableRawPointer(second)) }
        SortProbe.lastColumn = 0
        let ordering = gtk_sorter_compare(sorter, UnsafeMutableRawPointer(first), UnsafeMutableRawPointer(second))
        let index = SortProbe.lastColumn
        guard ordering != GTK_ORDERING_EQUAL, index > 0, index <= columns.count else { return nil }
        return (columns[index - 1].key, ordering == GTK_ORDERING_SMALLER)
    }

    /// Sorts by the column with `key` (as a header click would).
    func sort(byKey key: String, ascending: Bool) {
        guard let column = columns.first(where: { $0.key == key })?.column else { return }
        gtk_column_view_sort_by_column(
            halo_column_view(raw), OpaquePointer(column.raw), ascending ? GTK_SORT_ASCENDING : GTK_SORT_DESCENDING)
    }

    /// Called after the user sorted by a header (or `sort(byKey:)`). Only the primary column
    /// counts (the server sorts by one field), so older sort columns are dropped from the headers.
    func onSortChanged(_ handler: @escaping @MainActor () -> Void) {
        guard let sorter = gtk_column_view_get_sorter(halo_column_view(raw)) else { return }
        GObjectRef(retaining: UnsafeMutableRawPointer(sorter)).onPointer("changed") { [weak self] _ in
            guard let self, !self.isNormalizingSort else { return }
            if let state = self.sortState {
                self.isNormalizingSort = true
                self.dropSecondarySorts(keeping: state.key)
                self.isNormalizingSort = false
            }
            handler()
        }
    }

    private var isNormalizingSort = false

    /// Takes every other column out of the view's sorter. Re-setting a column's sorter removes it
    /// from the sort list and redraws its header (GTK 4.8 leaves stale arrows on older columns).
    private func dropSecondarySorts(keeping key: String) {
        for (column, columnKey) in columns where !columnKey.isEmpty && columnKey != key {
            let pointer = OpaquePointer(column.raw)
            guard let sorter = gtk_column_view_column_get_sorter(pointer) else { continue }
            g_object_ref(UnsafeMutableRawPointer(sorter))
            gtk_column_view_column_set_sorter(pointer, nil)
            gtk_column_view_column_set_sorter(pointer, sorter)
            g_object_unref(UnsafeMutableRawPointer(sorter))
        }
    }

    /// Row activated (double click or Enter).
    func onActivate(_ handler: @escaping @MainActor (Int) -> Void) {
        onUInt("activate") { handler(Int($0)) }
    }

    func onSelectionChanged(_ handler: @escaping @MainActor () -> Void) {
        selection.onUIntPair("selection-changed") { _, _ in handler() }
    }

    /// Selected row positions, ascending.
    var selectedPositions: [Int] {
        guard let bitset = gtk_selection_model_get_selection(selectionModel) else { return [] }
        defer { gtk_bitset_unref(bitset) }
        let size = gtk_bitset_get_size(bitset)
        return (0..<size).map { Int(gtk_bitset_get_nth(bitset, guint($0))) }
    }

    /// Selects `positions`, replacing the selection.
    func select(_ positions: [Int]) {
        guard let first = positions.first else { gtk_selection_model_unselect_all(selectionModel); return }
        // The first call replaces the selection in one step (no intermediate empty selection).
        gtk_selection_model_select_item(selectionModel, guint(first), 1)
        for position in positions.dropFirst() { gtk_selection_model_select_item(selectionModel, guint(position), 0) }
    }
}

/// The column index the sort probe's compare function saw last (main thread only: GTK calls it
/// synchronously from `gtk_sorter_compare`).
@MainActor
private enum SortProbe {
    static var lastColumn = 0
}

private let sortProbe: @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeMutableRawPointer?) -> gint = { _, _, data in
    let index = Int(bitPattern: data)
    MainActor.assumeIsolated {
        if SortProbe.lastColumn == 0 { SortProbe.lastColumn = index }
    }
    return GTK_ORDERING_SMALLER.rawValue
}

/// GDestroyNotify for Swift objects handed to GLib with `Unmanaged.passRetained`.
private let releaseRetainedObject: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
    guard let data else { return }
    Unmanaged<AnyObject>.fromOpaque(data).release()
}
