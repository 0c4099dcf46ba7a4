import CGtk
import Foundation
import HaloServices

/// The left pane: the app's modules with their instance counts (a navigation-sidebar list).
@MainActor
final class ModuleSidebar {
    private let list: ListBox
    private(set) var modules: [Module] = []

    /// Module id → name (the id when a module has no name).
    var moduleNames: [String: String] {
        Dictionary(modules.compactMap { module in module.id.map { ($0, module.name ?? $0) } }, uniquingKeysWith: { first, _ in first })
    }
    private(set) var countLabels: [Label] = []
    private var isUpdatingSelection = false
    /// Called when the user picks a module (not when `select(moduleId:)` is called).
    var onSelect: (@MainActor (Module) -> Void)?

    /// `list`: the GtkListBox of `workspace.ui` (browse selection, navigation-sidebar style).
    init(list: ListBox) {
        self.list = list
        list.onRowSelected { [weak self] index in
            guard let self, !self.isUpdatingSelection, let index else { return }
            if self.modules.indices.contains(index) { self.onSelect?(self.modules[index]) }
        }
    }

    /// Replaces the list; counts show "…" until `setCount` fills them. Rows are made here, one per
    /// module the server lists (a name and a count label: too small to deserve a template).
    func show(_ modules: [Module]) {
        isUpdatingSelection = true
        defer { isUpdatingSelection = false }
        while let child = gtk_widget_get_first_child(list.widget) { gtk_list_box_remove(OpaquePointer(list.raw), child) }
        self.modules = modules
        countLabels = modules.enumerated().map { index, module in
            let row = Box(vertical: false, spacing: 12)
            row.setMargins(6)
            let name = Label(module.name ?? "Untitled module", classes: [])
            name.expand(horizontally: true)
            let count = Label("…", classes: ["dim-label", "numeric"])
            row.append(name)
            row.append(count)
            gtk_list_box_append(OpaquePointer(list.raw), row.widget)
            // The row (not its labels) is what screen readers focus: name it until the count arrives.
            rowWidget(at: index).map { Widget(retaining: UnsafeMutableRawPointer($0)) }?
                .setAccessibleLabel(module.name ?? "Untitled module")
            return count
        }
    }

    func setCount(_ count: Int, forModuleId id: String) {
        guard let index = modules.firstIndex(where: { $0.id == id }) else { return }
        countLabels[index].text = DisplayFormat.count(count)
        rowWidget(at: index).map { Widget(retaining: UnsafeMutableRawPointer($0)) }?
            .setAccessibleLabel("\(modules[index].name ?? "Module"), \(count) instances")
    }

    /// Highlights a module without calling `onSelect`.
    func select(moduleId: String) {
        guard let index = modules.firstIndex(where: { $0.id == moduleId }), let row = rowWidget(at: index) else { return }
        isUpdatingSelection = true
        gtk_list_box_select_row(OpaquePointer(list.raw), row)
        isUpdatingSelection = false
    }

    /// Selects like a click would (calls `onSelect`): keyboard users and tests.
    func activate(moduleId: String) {
        guard let index = modules.firstIndex(where: { $0.id == moduleId }), let row = rowWidget(at: index) else { return }
        gtk_list_box_select_row(OpaquePointer(list.raw), row)
    }

    private func rowWidget(at index: Int) -> UnsafeMutablePointer<GtkListBoxRow>? {
        gtk_list_box_get_row_at_index(OpaquePointer(list.raw), gint(index))
    }
}
