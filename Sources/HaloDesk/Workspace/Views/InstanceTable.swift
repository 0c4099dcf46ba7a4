import CGtk
import Foundation
import HaloServices

/// The middle pane's list: a column view (name, updated, published, state, tags; the module too
/// for Favorites) over the pager.
/// Rows are positions; a row's text is looked up when GTK binds it, so 100,000 rows cost only the
/// visible ones, and rows whose page has not arrived show a placeholder until it does.
@MainActor
final class InstanceTable {
    @MainActor
    final class Cell {
        let label: Label
        /// What the label shows now (reading it back from GTK would cost a string copy).
        var shown = ""
        /// Shown when the pointer rests on the cell (asked for then, see `Widget.onQueryTooltip`).
        var tooltip: String?
        var isPlaceholder = false
        init(numeric: Bool) {
            label = Label("", classes: numeric ? ["numeric"] : [])
        }
    }

    let model = IndexListModel()
    let columnView: ColumnView
    let widget: Widget
    private let pager: InstancePager
    /// Whether a row's instance has an edit not yet on the server (its state says "Not sent").
    var isUnsent: @MainActor (ContentInstance) -> Bool = { _ in false }
    /// A module's name by id, for the Module column.
    var moduleName: @MainActor (String) -> String? = { _ in nil }
    /// The Module column: in the view only while rows come from several modules.
    private let moduleColumn: GObjectRef
    private(set) var showsModules = false
    /// Replacing every row drops the selection; while that happens, selection events are muted.
    private(set) var isRestoringSelection = false
    /// One cell factory per column.
    private var factories: [ListItemFactory<Cell>] = []

    /// Takes the column view, its scroller and its columns (titles, widths) from `workspace.ui`;
    /// the cells are made here, one label per column, because their text comes from the pager.
    init(pager: InstancePager, builder: Builder) throws {
        self.pager = pager
        columnView = ColumnView(loaded: try builder.object("instance_table"), model: model)
        widget = try builder.object("instance_scroller")
        moduleColumn = try builder.object("module_column")
        try configure(builder.object("name_column"), sortKey: SortBy.name.rawValue, tooltip: true) {
            $0.name.isEmpty ? "Untitled" : $0.name
        }
        try configure(builder.object("updated_column"), sortKey: SortBy.updatedAt.rawValue, numeric: true) { instance in
            DisplayFormat.day(instance.updatedAt ?? instance.createdAt)
        }
        try configure(builder.object("published_column"), sortKey: SortBy.publishedAt.rawValue, numeric: true) { instance in
            instance.publishedAt.map(DisplayFormat.day) ?? "—"
        }
        try configure(builder.object("state_column"), sortKey: nil, tooltip: true) { [weak self] instance in
            self?.isUnsent(instance) == true ? "Not sent" : InstanceState(instance: instance).label
        }
        try configure(builder.object("tags_column"), sortKey: nil, tooltip: true) { instance in
            instance.tagList.map(Publication.text(of:)).joined(separator: ", ")
        }
        configure(moduleColumn, sortKey: nil, tooltip: true) { [weak self] instance in
            self?.moduleName(instance.moduleId) ?? instance.moduleId
        }
    }

    /// Shows the Module column after the names, or takes it away.
    func showModules(_ show: Bool) {
        guard show != showsModules else { return }
        showsModules = show
        let view = halo_column_view(columnView.raw), column = OpaquePointer(moduleColumn.raw)
        if show { gtk_column_view_insert_column(view, 1, column) } else { gtk_column_view_remove_column(view, column) }
    }

    /// `tooltip`: long texts (names, tags) can be ellipsized, so the cell's tooltip shows them whole.
    private func configure(
        _ column: GObjectRef, sortKey: String?, numeric: Bool = false, tooltip: Bool = false,
        text: @escaping @MainActor (ContentInstance) -> String
    ) {
        let pager = pager
        let factory = ListItemFactory<Cell>(
            makeRow: {
                let cell = Cell(numeric: numeric)
                if tooltip { cell.label.onQueryTooltip { [weak cell] in cell?.tooltip } }
                return (cell, cell.label)
            },
            bind: { [weak self] cell, position in
                // Only what changes is set: every change of a label's text or style is work for
                // GTK (and a message to assistive technologies).
                // A row past the new end is blank for the few frames until it is removed.
                let isLeaving = position >= (self?.targetCount ?? .max)
                let instance = isLeaving ? nil : pager.instance(at: position)
                let shown = isLeaving ? "" : instance.map(text) ?? "…"
                if cell.shown != shown {
                    cell.label.text = shown
                    cell.shown = shown
                }
                cell.tooltip = tooltip && !shown.isEmpty && instance != nil ? shown : nil
                if cell.isPlaceholder != (instance == nil && !isLeaving) {
                    cell.isPlaceholder = instance == nil && !isLeaving
                    if cell.isPlaceholder { cell.label.addCSSClass("dim-label") } else { cell.label.removeCSSClass("dim-label") }
                }
            })
        columnView.configureColumn(column, factory: factory, sortKey: sortKey)
        factories.append(factory)
    }

    // MARK: Row work, a few rows per frame
    //
    // GTK 4.8 keeps up to 200 rows built (GTK_LIST_VIEW_MAX_LIST_ITEMS), and each row made, removed
    // or filled again costs it about a millisecond (5 cells: widgets, layout, and a message per
    // cell to assistive technologies). Done at once, replacing a module of thousands blocked a
    // frame for 150–450 ms and a page arriving for ~100 ms. So the rows on screen are done at
    // once and the rest `rowsPerFrame` a frame; rows past the ones GTK builds are only a count.

    /// Rows made, removed or filled again per frame beyond those on screen (~15–25 ms of GTK work).
    static let rowsPerFrame = 16
    private static let rowsKeptBuilt = 200
    /// The row count being worked toward (the pager's total).
    private var targetCount = 0
    /// Bound rows whose widgets show data that is no longer theirs (the previous module's, or a
    /// placeholder whose page arrived).
    private var staleRows = Set<Int>()
    private var isWaitingForFrames = false

    /// True when every row is in place and shows its data (no work left for later frames).
    var isSettled: Bool { model.count == targetCount && staleRows.isEmpty }

    /// Makes the rows in `range` show their (new) data, in place (focus and selection stay).
    func refresh(_ range: Range<Int>) {
        staleRows.formUnion(boundRows().map(\.position).filter(range.contains))
        workOnRows(onScreenOnly: true)
    }

    /// Shows a new list of `count` rows (a new module, filter, sort or total) from the top, with
    /// nothing selected. The rows that stay keep their widgets and are filled again; rows are
    /// added or removed at the end only (`IndexListModel.resize`).
    func reload(count: Int) {
        isRestoringSelection = true
        defer { isRestoringSelection = false }
        columnView.select([])
        gtk_adjustment_set_value(verticalAdjustment, 0)
        targetCount = count
        if model.count > max(count, Self.rowsKeptBuilt) { model.resize(to: max(count, Self.rowsKeptBuilt)) }
        staleRows = Set(boundRows().map(\.position))
        workOnRows()
        keepAtTopWhileRowsArrive()
    }

    /// Counts reloads, so that the top-keeping of an older one stops.
    private var reloadGeneration = 0

    /// GTK 4.8 re-anchors the list while rows are added under it and leaves it scrolled by a
    /// pixel or three (seen on a busy machine when a module of 100,000 replaced one of 10), so
    /// the first row showed cut off. Until the rows have settled, a scroll of less than a row is
    /// put back to the top; a larger one is the user's and is left alone.
    private func keepAtTopWhileRowsArrive() {
        reloadGeneration += 1
        let generation = reloadGeneration
        var settledFrames = 0
        columnView.onEachFrame { [weak self] in
            guard let self, self.reloadGeneration == generation else { return false }
            let value = gtk_adjustment_get_value(self.verticalAdjustment)
            if value >= Double(self.rowHeight(self.boundRows())) { return false }
            if value > 0 { gtk_adjustment_set_value(self.verticalAdjustment, 0) }
            if self.isSettled { settledFrames += 1 }
            return settledFrames < 3  // GTK lays out the last rows added in the frames after
        }
    }

    /// This frame's share of the row work; asks for the next frames while some is left.
    /// `onScreenOnly`: only fill the rows on screen now (new data arrived within a frame that
    /// may already have done its share).
    private func workOnRows(onScreenOnly: Bool = false) {
        guard columnView.isMapped else {  // nothing is painted: no frame to keep short
            model.resize(to: targetCount)
            fill(staleRows)
            return
        }
        let rows = boundRows()
        staleRows.formIntersection(rows.map(\.position))
        let onScreen = visiblePositions(rows)
        let staleOnScreen = staleRows.filter(onScreen.contains)
        fill(staleOnScreen)
        var budget = onScreenOnly ? 0 : max(0, Self.rowsPerFrame - staleOnScreen.count)
        if model.count < targetCount, !onScreenOnly {
            // At least the rows the window has room for, at once.
            let next = max(model.count + budget, onScreen.upperBound)
            model.resize(to: next >= Self.rowsKeptBuilt ? targetCount : min(next, targetCount))
            budget = 0
        } else if model.count > targetCount, budget > 0 {
            model.resize(to: max(targetCount, model.count - budget))
            budget = 0
        }
        fill(Set(staleRows.filter { $0 < targetCount }.sorted().prefix(budget)))
        staleRows = staleRows.filter { $0 < model.count }
        if !isSettled, !isWaitingForFrames {
            isWaitingForFrames = true
            columnView.onEachFrame { [weak self] in
                guard let self else { return false }
                self.isWaitingForFrames = false
                self.workOnRows()
                return false  // workOnRows asked for the next frame if it needs one
            }
        }
    }

    private func fill(_ positions: Set<Int>) {
        guard !positions.isEmpty else { return }
        factories.forEach { $0.rebind(where: positions.contains) }
        staleRows.subtract(positions)
    }

    /// The rows GTK has bound (every column binds the same rows; the first column's are asked).
    private func boundRows() -> [(position: Int, widget: UnsafeMutablePointer<GtkWidget>)] { factories.first?.boundRows ?? [] }

    /// The positions of the rows inside the scrolled window's visible area. Rows are one line
    /// high, so the scroll offset and the row height tell which (measuring each row widget's
    /// place costs GTK ~10 ms for the 200 rows it keeps built).
    private func visiblePositions(_ rows: [(position: Int, widget: UnsafeMutablePointer<GtkWidget>)]) -> Range<Int> {
        let rowHeight = rowHeight(rows)
        let first = max(0, Int(gtk_adjustment_get_value(verticalAdjustment)) / rowHeight - 1)
        return first..<(first + Int(gtk_widget_get_height(widget.widget)) / rowHeight + 3)
    }

    /// The height of a row in pixels: a bound widget is a cell's label, and its parent, the
    /// cell, is as high as the row.
    private func rowHeight(_ rows: [(position: Int, widget: UnsafeMutablePointer<GtkWidget>)]) -> Int {
        rows.lazy.compactMap { gtk_widget_get_parent($0.widget).map { Int(gtk_widget_get_height($0)) } }.first { $0 > 0 } ?? 34
    }

    private var verticalAdjustment: UnsafeMutablePointer<GtkAdjustment>? { gtk_scrolled_window_get_vadjustment(OpaquePointer(widget.raw)) }
}

/// The publication state shown in the list and the detail pane.
enum InstanceState: String {
    case draft, scheduled, published, expired, archived, deleted

    init(instance: ContentInstance, now: Date = Date()) {
        if instance.isDeleted(at: now) {
            self = .deleted
        } else if instance.isArchived(at: now) {
            self = .archived
        } else if instance.isRemoved(at: now) {
            self = .expired
        } else if instance.isPublished(at: now) {
            self = .published
        } else if instance.publishedAt != nil {
            self = .scheduled
        } else {
            self = .draft
        }
    }

    var label: String { rawValue.capitalized }
}
