import CGtk

/// A `GListModel` of row positions ("0", "1", …) for views whose rows live on the Swift side.
///
/// The model (`HaloIndexList`, CGtk/index-list.h) stores only a count: GTK list views ask for the
/// rows they show, and only those get an item object, so a 100,000-row list costs a few bytes
/// plus the ~200 rows actually bound. The data for a row is looked up by position when it is
/// bound. `reload(count:)` replaces every row at once; rows whose data arrived (e.g. a page from
/// the server) are filled again in place by their factory (`ListItemFactory.rebind`).
@MainActor
final class IndexListModel {
    let list: GObjectRef
    private(set) var count = 0

    init() {
        list = GObjectRef(adopting: UnsafeMutableRawPointer(halo_index_list_new()))
    }

    var model: OpaquePointer { halo_list_model(list.raw) }

    /// Replaces all rows with `count` rows (positions 0..<count).
    func reload(count newCount: Int) {
        splice(at: 0, removing: count, inserting: newCount)
    }

    /// The position a row item stands for (items are `GtkStringObject`s holding it).
    static func position(ofItem item: UnsafeMutableRawPointer?) -> Int? {
        guard let item, let text = gtk_string_object_get_string(halo_string_object(item)) else { return nil }
        return Int(String(cString: text))
    }

    private func splice(at position: Int, removing: Int, inserting: Int) {
        count = count - removing + inserting
        halo_index_list_splice(model, guint(position), guint(removing), guint(inserting))
    }
}
