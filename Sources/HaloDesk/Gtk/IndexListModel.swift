import CGtk

/// A `GListModel` of row positions ("0", "1", …) for views whose rows live on the Swift side.
///
/// The model (`HaloIndexList`, CGtk/index-list.h) stores only a count: GTK list views ask for the
/// rows they show, and only those get an item object, so a 100,000-row list costs a few bytes
/// plus the ~200 rows actually bound. The data for a row is looked up by position when it is
/// bound. `resize(to:)` adds or removes rows at the end only: the rows that stay keep their
/// widgets, and their factory fills them again in place (`ListItemFactory.rebind`).
@MainActor
final class IndexListModel {
    let list: GObjectRef
    private(set) var count = 0

    init() {
        list = GObjectRef(adopting: UnsafeMutableRawPointer(halo_index_list_new()))
    }

    var model: OpaquePointer { halo_list_model(list.raw) }

    /// Shows `newCount` rows (positions 0..<newCount) by removing or adding rows at the end.
    ///
    /// Replacing every row would make GTK 4.8 destroy and build again the widgets of every row it
    /// keeps ready (up to 200, GTK_LIST_VIEW_MAX_LIST_ITEMS), a 150–450 ms frame when a module of
    /// thousands replaced another; rows that stay are cheaper to fill again.
    func resize(to newCount: Int) {
        if newCount < count {
            splice(at: newCount, removing: count - newCount, inserting: 0)
        } else if newCount > count {
            splice(at: count, removing: 0, inserting: newCount - count)
        }
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
