import CGtk
import Foundation
import HaloServices

/// The middle pane's list: a column view (name, updated, published, state, tags) over the pager.
/// Rows are positions; a row's text is looked up when GTK binds it, so 100,000 rows cost only the
/// visible ones, and rows whose page has not arrived show a placeholder until it does.
@MainActor
final class InstanceTable {
    @MainActor
    final class Cell {
        let label: Label
        /// What the label shows now (reading it back from GTK would cost a string copy).
        var shown = ""
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
            instance.tagList.map { tag in tag.value.map { "\(tag.name): \($0)" } ?? tag.name }.joined(separator: ", ")
        }
    }

    /// `tooltip`: long texts (names, tags) can be ellipsized, so the cell's tooltip shows them whole.
    private func configure(
        _ column: GObjectRef, sortKey: String?, numeric: Bool = false, tooltip: Bool = false,
        text: @escaping @MainActor (ContentInstance) -> String
    ) {
        let pager = pager
        let factory = ListItemFactory<Cell>(
            makeRow: {
                let cell = Cell(numeric: numeric); return (cell, cell.label)
            },
            bind: { cell, position in
                // Only what changes is set: every change of a label's text, tooltip or style is
                // work for GTK (and a message to assistive technologies), and a list rebinds
                // about 200 rows of 5 cells at once.
                let instance = pager.instance(at: position)
                let shown = instance.map(text) ?? "…"
                if cell.shown != shown {
                    cell.label.text = shown
                    cell.shown = shown
                }
                let hint = tooltip && !shown.isEmpty && instance != nil ? shown : nil
                if cell.tooltip != hint {
                    cell.label.tooltip = hint
                    cell.tooltip = hint
                }
                if cell.isPlaceholder != (instance == nil) {
                    cell.isPlaceholder = instance == nil
                    if cell.isPlaceholder { cell.label.addCSSClass("dim-label") } else { cell.label.removeCSSClass("dim-label") }
                }
            })
        columnView.configureColumn(column, factory: factory, sortKey: sortKey)
        factories.append(factory)
    }

    /// Makes the rows in `range` show their (new) data, in place (focus and selection stay).
    func refresh(_ range: Range<Int>) {
        factories.forEach { $0.rebind(range) }
    }

    /// Replaces every row (a new module, filter, sort or total).
    func reload(count: Int) {
        isRestoringSelection = true
        defer { isRestoringSelection = false }
        model.reload(count: count)
    }
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
