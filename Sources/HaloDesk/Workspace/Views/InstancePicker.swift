import CGtk
import Foundation
import HaloServices

/// An instance a picker offers: what it stores (the id) and what it shows (name and module).
struct InstanceChoice: Equatable, Sendable {
    let id: String
    let name: String
    let moduleId: String
    let moduleName: String?

    /// `instance` as a choice, its module named from `moduleNames` (nil for one not saved yet).
    init?(_ instance: ContentInstance, moduleNames: [String: String]) {
        guard let id = instance.id else { return nil }
        self.id = id
        name = instance.name
        moduleId = instance.moduleId
        moduleName = moduleNames[instance.moduleId]
    }

    var label: String { moduleName.map { "\(name) — \($0)" } ?? name }
}

/// Finds instances by name for a picker: an empty text gives the recently updated ones; else
/// the text has at least 3 characters (HALO's rule for `like`).
typealias InstanceSearch = @MainActor (String) async -> [InstanceChoice]

/// A search-as-you-type instance picker: a menu button showing the chosen instance's name, whose
/// popover searches instances by name as the user types and lists them as buttons (name and
/// module). Relations are chosen by name, never by typing a 24-character id.
@MainActor
final class InstancePicker {
    let button: MenuButton
    let searchEntry: Editable
    /// The instances listed for the current search text (tests click them as a user would).
    private(set) var resultButtons: [(choice: InstanceChoice, button: Button)] = []
    let status: Label
    private let results: Box
    private let popover: Popover
    private let search: InstanceSearch
    /// Hears the instance chosen (a host may set it after init to capture itself weakly).
    var onPick: @MainActor (InstanceChoice) -> Void
    private let purpose: String
    private var generation = 0
    /// Finished searches (tests wait on it).
    private(set) var completedSearches = 0

    init(
        shown: String?, placeholder: String = "Choose an instance…", accessibleLabel: String, search: @escaping InstanceSearch,
        onPick: @escaping @MainActor (InstanceChoice) -> Void
    ) {
        self.search = search
        self.onPick = onPick
        purpose = accessibleLabel
        searchEntry = Editable(sinking: UnsafeMutableRawPointer(gtk_search_entry_new()))
        searchEntry.setAccessibleLabel("Search instances by name")
        halo_object_set_string(searchEntry.raw, "placeholder-text", "Search by name")
        status = Label("", classes: ["dim-label", "caption"], wrap: true)
        results = Box(vertical: true)
        let column = Box(vertical: true, spacing: 6)
        column.append(searchEntry)
        column.append(status)
        let scroller = ScrolledWindow(child: results)
        gtk_scrolled_window_set_propagate_natural_height(OpaquePointer(scroller.raw), 1)
        gtk_scrolled_window_set_max_content_height(OpaquePointer(scroller.raw), 320)
        gtk_widget_set_size_request(scroller.widget, 260, -1)
        column.append(scroller)
        popover = Popover(child: column)
        let label = shown ?? placeholder
        button = MenuButton(label: label, accessibleLabel: "\(accessibleLabel): \(label)", popover: popover)
        searchEntry.onSearchChanged(weakly(self) { $0.runSearch() })
        searchEntry.on("activate", weakly(self) { picker in picker.resultButtons.first?.button.click() })
        popover.onMap(
            weakly(self) { picker in
                _ = picker.searchEntry.grabFocus()
                picker.runSearch()
            })
    }

    /// Shows a chosen instance's name (once it is known).
    func show(name: String) {
        button.label = name
        button.setAccessibleLabel("\(purpose): \(name)")
    }

    /// Opens the popover (the keyboard goes to its search entry).
    func open() { button.popup() }

    private func runSearch() {
        generation += 1
        let asked = generation
        let text = searchEntry.text.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.count < 3 {
            showResults([], status: "Type at least 3 characters of the name.")
            completedSearches += 1
            return
        }
        status.text = "Searching…"
        Task { @MainActor in
            let found = await self.search(text)
            guard asked == self.generation else { return }
            let message =
                found.isEmpty
                ? (text.isEmpty ? "No instances yet." : "No instance has “\(text)” in its name.")
                : (text.isEmpty ? "Recently updated" : "")
            self.showResults(found, status: message)
            self.completedSearches += 1
        }
    }

    private func showResults(_ found: [InstanceChoice], status message: String) {
        results.removeAll()
        status.text = message
        status.isVisible = !message.isEmpty
        resultButtons = found.map { choice in
            let result = Button(label: choice.label)
            result.addCSSClass("flat")
            if let label = gtk_button_get_child(halo_button(result.raw)) { gtk_label_set_xalign(OpaquePointer(label), 0) }
            result.onClicked(
                weakly(self) { picker in
                    picker.popover.popdown()
                    picker.show(name: choice.name)
                    picker.onPick(choice)
                })
            results.append(result)
            return (choice, result)
        }
    }
}
