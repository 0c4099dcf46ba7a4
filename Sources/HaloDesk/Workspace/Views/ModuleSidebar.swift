import CGtk
import Foundation
import HaloServices

/// The left pane: Favorites (the signed-in user's starred instances, across modules), then the
/// app's modules with their instance counts (a navigation-sidebar list), each followed by the
/// user's saved views of that module (a menu on each renames or deletes it).
@MainActor
final class ModuleSidebar {
    private let list: ListBox
    private(set) var modules: [Module] = []
    /// The saved views shown under their modules.
    private(set) var views: [SavedView] = []
    /// What each row of the list is, in row order.
    private var rows: [Entry] = []
    private enum Entry {
        case favorites
        case module(Module)
        case view(SavedView)
    }
    /// Whether the Favorites row is listed (favorites need a signed-in user's pocket).
    private(set) var showsFavorites = false
    /// Favorites found, as last reported (nil: not counted yet).
    private var favoritesCount: Int?
    private var favoritesCountLabel: Label?

    /// Module id → name (the id when a module has no name).
    var moduleNames: [String: String] {
        Dictionary(modules.compactMap { module in module.id.map { ($0, module.name ?? $0) } }, uniquingKeysWith: { first, _ in first })
    }
    /// Instance counts by module id, as last reported (rows rebuilt for new views keep them).
    private var counts: [String: Int] = [:]
    private var countLabels: [String: Label] = [:]
    private var isUpdatingSelection = false
    /// Called when the user picks a module (not when `select(moduleId:)` is called).
    var onSelect: (@MainActor (Module) -> Void)?
    /// Called when the user picks a saved view.
    var onSelectView: (@MainActor (SavedView) -> Void)?
    /// Called when the user picks Favorites.
    var onSelectFavorites: (@MainActor () -> Void)?
    /// Called with a view and its new name from the view's menu.
    var onRenameView: (@MainActor (SavedView, String) -> Void)?
    /// Called when "Delete View…" is chosen in a view's menu.
    var onDeleteView: (@MainActor (SavedView) -> Void)?
    /// The menu button of each view row, by view id (tests open them as a user would).
    private(set) var viewMenus: [String: ViewMenu] = [:]

    /// `list`: the GtkListBox of `workspace.ui` (browse selection, navigation-sidebar style).
    init(list: ListBox) {
        self.list = list
        list.onRowSelected { [weak self] index in
            guard let self, !self.isUpdatingSelection, let index, self.rows.indices.contains(index) else { return }
            switch self.rows[index] {
            case .favorites: self.onSelectFavorites?()
            case .module(let module): self.onSelect?(module)
            case .view(let view): self.onSelectView?(view)
            }
        }
    }

    /// Replaces the modules; counts show "…" until `setCount` fills them.
    func show(_ modules: [Module]) {
        self.modules = modules
        rebuild()
    }

    /// Lists Favorites above the modules, or not.
    func show(favorites: Bool) {
        guard favorites != showsFavorites else { return }
        showsFavorites = favorites
        rebuild()
    }

    /// Replaces the saved views shown under the modules.
    func show(views: [SavedView]) {
        guard views != self.views else { return }
        self.views = views
        rebuild()
    }

    /// Rows are made here, one per module the server lists (a name and a count label: too small
    /// to deserve a template) and one per view after its module. The selection is kept.
    private func rebuild() {
        isUpdatingSelection = true
        defer { isUpdatingSelection = false }
        let selected = selectedIndex.map { rows[$0] }
        while let child = gtk_widget_get_first_child(list.widget) { gtk_list_box_remove(OpaquePointer(list.raw), child) }
        countLabels = [:]
        viewMenus = [:]
        rows = []
        favoritesCountLabel = nil
        if showsFavorites { append(favoritesRow(), .favorites) }
        showFavoritesCount()
        for module in modules {
            let row = Box(vertical: false, spacing: 12)
            row.setMargins(6)
            let name = Label(module.name ?? "Untitled module", classes: [])
            name.expand(horizontally: true)
            let count = Label("…", classes: ["dim-label", "numeric"])
            row.append(name)
            row.append(count)
            append(row, .module(module))
            if let id = module.id {
                countLabels[id] = count
                showCount(forModuleId: id)
            }
            for view in views where view.moduleId == module.id {
                append(viewRow(view), .view(view))
                rowWidget(at: rows.count - 1)?.setAccessibleLabel("Saved view \(view.name) of \(module.name ?? "the module")")
            }
        }
        switch selected {
        case .favorites?: selectFavorites()
        case .module(let module)?: if let id = module.id { select(moduleId: id) }
        case .view(let view)?: select(viewId: view.id)
        case nil: break
        }
    }

    private func append(_ content: Widget, _ entry: Entry) {
        gtk_list_box_append(OpaquePointer(list.raw), content.widget)
        rows.append(entry)
    }

    /// Favorites' row: a star, the name and how many there are.
    private func favoritesRow() -> Widget {
        let row = Box(vertical: false, spacing: 8)
        row.setMargins(6)
        let icon = Widget(sinking: UnsafeMutableRawPointer(gtk_image_new_from_icon_name("starred-symbolic")))
        let name = Label("Favorites", classes: [])
        name.expand(horizontally: true)
        let count = Label("…", classes: ["dim-label", "numeric"])
        favoritesCountLabel = count
        row.append(icon)
        row.append(name)
        row.append(count)
        return row
    }

    /// How many favorites there are (nil: not known yet).
    func setFavoritesCount(_ count: Int?) {
        favoritesCount = count
        showFavoritesCount()
    }

    private func showFavoritesCount() {
        guard let index = rows.firstIndex(where: { if case .favorites = $0 { true } else { false } }) else { return }
        favoritesCountLabel?.text = favoritesCount.map(DisplayFormat.count) ?? "…"
        rowWidget(at: index)?.setAccessibleLabel(
            favoritesCount.map { "Favorites, \($0) instance\($0 == 1 ? "" : "s")" } ?? "Favorites")
    }

    /// The count shown for Favorites ("…" until known; nil when the row is not listed).
    var favoritesCountText: String? { favoritesCountLabel?.text }

    /// Highlights Favorites without calling `onSelectFavorites`.
    func selectFavorites() {
        select(row: rows.firstIndex { if case .favorites = $0 { true } else { false } })
    }

    /// Selects Favorites like a click would (calls `onSelectFavorites`).
    func activateFavorites() {
        activate(row: rows.firstIndex { if case .favorites = $0 { true } else { false } })
    }

    /// A view's row: indented under its module, a search icon, the name, and its menu.
    private func viewRow(_ view: SavedView) -> Widget {
        let row = Box(vertical: false, spacing: 8)
        row.setMargins(2)
        gtk_widget_set_margin_start(row.widget, 18)
        let icon = Widget(sinking: UnsafeMutableRawPointer(gtk_image_new_from_icon_name("edit-find-symbolic")))
        icon.addCSSClass("dim-label")
        let name = Label(view.name, classes: [])
        name.expand(horizontally: true)
        let menu = ViewMenu(view: view)
        menu.onRename = { [weak self] name in self?.onRenameView?(view, name) }
        menu.onDelete = { [weak self] in self?.onDeleteView?(view) }
        viewMenus[view.id] = menu
        row.append(icon)
        row.append(name)
        row.append(menu.button)
        return row
    }

    func setCount(_ count: Int, forModuleId id: String) {
        counts[id] = count
        showCount(forModuleId: id)
    }

    /// The module's count label ("…" until known) and its row's name: the row (not its labels) is
    /// what screen readers focus, named by the module alone until the count arrives.
    private func showCount(forModuleId id: String) {
        guard let index = rows.firstIndex(where: { if case .module(let module) = $0 { module.id == id } else { false } }),
            case .module(let module) = rows[index]
        else { return }
        let name = module.name ?? "Untitled module"
        let count = counts[id]
        countLabels[id]?.text = count.map(DisplayFormat.count) ?? "…"
        rowWidget(at: index)?.setAccessibleLabel(count.map { "\(name), \($0) instances" } ?? name)
    }

    /// The count shown for a module ("…" until it arrives).
    func countText(forModuleId id: String) -> String? { countLabels[id]?.text }

    /// Highlights a module without calling `onSelect`.
    func select(moduleId: String) {
        select(row: rows.firstIndex { if case .module(let module) = $0 { module.id == moduleId } else { false } })
    }

    /// Highlights a saved view without calling `onSelectView`.
    func select(viewId: String) {
        select(row: rows.firstIndex { if case .view(let view) = $0 { view.id == viewId } else { false } })
    }

    private func select(row index: Int?) {
        guard let index, let row = listBoxRow(at: index) else { return }
        isUpdatingSelection = true
        gtk_list_box_select_row(OpaquePointer(list.raw), row)
        isUpdatingSelection = false
    }

    /// Selects like a click would (calls `onSelect`): keyboard users and tests.
    func activate(moduleId: String) {
        activate(row: rows.firstIndex { if case .module(let module) = $0 { module.id == moduleId } else { false } })
    }

    /// Selects a saved view like a click would (calls `onSelectView`).
    func activate(viewId: String) {
        activate(row: rows.firstIndex { if case .view(let view) = $0 { view.id == viewId } else { false } })
    }

    private func activate(row index: Int?) {
        guard let index, let row = listBoxRow(at: index) else { return }
        gtk_list_box_select_row(OpaquePointer(list.raw), row)
    }

    private var selectedIndex: Int? {
        guard let row = gtk_list_box_get_selected_row(OpaquePointer(list.raw)) else { return nil }
        let index = Int(gtk_list_box_row_get_index(row))
        return rows.indices.contains(index) ? index : nil
    }

    private func listBoxRow(at index: Int) -> UnsafeMutablePointer<GtkListBoxRow>? {
        gtk_list_box_get_row_at_index(OpaquePointer(list.raw), gint(index))
    }

    private func rowWidget(at index: Int) -> Widget? {
        listBoxRow(at: index).map { Widget(retaining: UnsafeMutableRawPointer($0)) }
    }
}

/// The menu of a saved view's row: rename in place (an entry and Rename) and Delete View….
@MainActor
final class ViewMenu {
    let button: MenuButton
    let nameEntry: Editable
    let renameButton: Button
    let deleteButton: Button
    private let popover: Popover
    var onRename: (@MainActor (String) -> Void)?
    var onDelete: (@MainActor () -> Void)?

    init(view: SavedView) {
        nameEntry = Editable.entry(accessibleLabel: "Name of the view")
        nameEntry.text = view.name
        renameButton = Button(label: "Rename")
        renameButton.addCSSClass("suggested-action")
        deleteButton = Button(label: "Delete View…")
        deleteButton.addCSSClass("flat")
        deleteButton.addCSSClass("destructive-action")
        let column = Box(vertical: true, spacing: 6)
        column.setMargins(6)
        column.append(Label("Name", classes: ["heading"]))
        let line = Box(vertical: false, spacing: 6)
        line.append(nameEntry)
        line.append(renameButton)
        column.append(line)
        column.append(deleteButton)
        popover = Popover(child: column)
        button = MenuButton(iconName: "view-more-symbolic", tooltip: "Rename or delete “\(view.name)”", popover: popover)
        button.addCSSClass("flat")
        let rename = weakly(self) { (menu: ViewMenu) in
            let name = menu.nameEntry.text.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { return }
            menu.popover.popdown()
            if name != view.name { menu.onRename?(name) }
        }
        renameButton.onClicked(rename)
        nameEntry.on("activate", rename)
        nameEntry.onChanged(
            weakly(self) { menu in menu.renameButton.isSensitive = !menu.nameEntry.text.trimmingCharacters(in: .whitespaces).isEmpty })
        deleteButton.onClicked(
            weakly(self) { menu in
                menu.popover.popdown()
                menu.onDelete?()
            })
        popover.onMap { [weak nameEntry] in _ = nameEntry?.grabFocus() }
    }
}
