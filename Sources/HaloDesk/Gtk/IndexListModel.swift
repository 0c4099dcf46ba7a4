import CGtk

/// A `GListModel` of row positions ("0", "1", …) for views whose rows live on the Swift side.
///
/// GTK list views only ask for the rows they show, so a 100,000-row list costs one string per row
/// here (built in tens of milliseconds) plus the ~200 rows actually bound; the data for a row is
/// looked up by position when it is bound. `reload(count:)` replaces every row at once;
/// `refresh(range:)` asks the view to rebind rows whose data arrived (e.g. a page from the server).
@MainActor
final class IndexListModel {
    let list: GObjectRef
    private(set) var count = 0

    init() {
        list = GObjectRef(adopting: UnsafeMutableRawPointer(gtk_string_list_new(nil)))
    }

    var model: OpaquePointer { halo_list_model(list.raw) }

    /// Replaces all rows with `count` rows (positions 0..<count).
    func reload(count newCount: Int) {
        splice(at: 0, removing: count, inserting: 0..<newCount)
        count = newCount
    }

    /// Makes the view rebind the rows in `range` (their data changed on the Swift side).
    func refresh(_ range: Range<Int>) {
        let clamped = range.clamped(to: 0..<count)
        guard !clamped.isEmpty else { return }
        splice(at: clamped.lowerBound, removing: clamped.count, inserting: clamped)
    }

    /// The row position stored in a `GtkStringObject` item of this model.
    static func position(ofItem item: UnsafeMutableRawPointer?) -> Int? {
        guard let item, let text = gtk_string_object_get_string(halo_string_object(item)) else { return nil }
        return Int(String(cString: text))
    }

    private func splice(at position: Int, removing: Int, inserting range: Range<Int>) {
        // One C array of C strings for the whole batch: a single items-changed signal.
        var strings: [UnsafeMutablePointer<CChar>?] = range.map { strdup(String($0)) }
        strings.append(nil)
        defer { strings.forEach { free($0) } }
        strings.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress?.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { additions in
                gtk_string_list_splice(OpaquePointer(list.raw), guint(position), guint(removing), additions)
            }
        }
    }
}
