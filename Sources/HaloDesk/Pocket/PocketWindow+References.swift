import CAdw
import CGtk
import HaloServices

/// The References group: one expander row per list (its entries, an entry row to type one, an
/// instance picker, Clear List and Delete List), and the New List row. Rebuilt after each edit of
/// the lists (they are small); an entry that is an instance id shows the instance's name and
/// module, and its Open button opens it in the workspace.
extension PocketWindow {
    func renderLists() {
        listControls.values.forEach { referencesGroup.remove($0.row) }
        listControls = [:]
        for list in draft?.references ?? [] {
            listControls[list.name] = listRow(list)
            if let row = listControls[list.name]?.row { referencesGroup.add(row) }
        }
    }

    private func listRow(_ list: PocketReferenceList) -> ListControls {
        let name = list.name
        let row = ExpanderRow(title: name)
        let subtitle: String =
            switch list.entries?.count {
            case nil: "Deleted when you save"
            case 0: "Empty"
            case 1: "1 entry"
            case let count?: "\(count) entries"
            }
        adw_expander_row_set_subtitle(row.raw.assumingMemoryBound(to: AdwExpanderRow.self), subtitle)
        row.isExpanded = true
        var entryRows: [(row: ActionRow, remove: Button)] = []
        for (index, entry) in (list.entries ?? []).enumerated() {
            let choice = instanceNames[entry]
            let entryRow = ActionRow(
                title: choice?.name ?? entry, subtitle: choice.map { "\($0.moduleName ?? "Instance") · \(entry)" } ?? "")
            if choice != nil {
                let open = Button(
                    iconName: "go-next-symbolic", accessibleLabel: "Open \(choice?.name ?? entry)", tooltip: "Open this instance")
                open.centerVertically()
                open.onClicked(weakly(self) { window in window.services.openInstance(entry) })
                entryRow.addSuffix(open)
            }
            let remove = Button(
                iconName: "list-remove-symbolic", accessibleLabel: "Remove \(choice?.name ?? entry) from \(name)",
                tooltip: "Remove from the list")
            remove.centerVertically()
            remove.onClicked(weakly(self) { window in window.editLists { $0.updateList(name) { $0.entries?.remove(at: index) } } })
            entryRow.addSuffix(remove)
            row.addRow(entryRow)
            entryRows.append((entryRow, remove))
        }

        let addEntry = EntryRow(title: "Add an entry to \(name)")
        gtk_widget_set_tooltip_text(addEntry.widget, "Type an entry and press Enter")
        addEntry.onAdd(addEntry.addButton(accessibleLabel: "Add the entry to \(name)", tooltip: "Add this entry")) {
            [weak self, weak addEntry] in
            guard let self, let text = addEntry?.asEditable.text.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return }
            self.append(text, to: name)
        }
        row.addRow(addEntry)

        let picker = InstancePicker(
            shown: nil, placeholder: "Add an Instance…", accessibleLabel: "Add an instance to \(name)", search: services.search
        ) {
            [weak self] choice in
            self?.instanceNames[choice.id] = choice
            self?.append(choice.id, to: name)
        }
        let clear = Button(label: "Clear List")
        clear.setAccessibleLabel("Clear \(name)")
        clear.tooltip = "Save the list empty (sent as [])"
        clear.isSensitive = list.entries?.isEmpty == false
        clear.onClicked(weakly(self) { window in window.editLists { $0.updateList(name) { $0.entries = [] } } })
        let delete = Button(label: list.entries == nil ? "Keep List" : "Delete List")
        delete.setAccessibleLabel(list.entries == nil ? "Keep \(name)" : "Delete \(name)")
        delete.tooltip = list.entries == nil ? "Keep the list after all" : "Remove the list from the pocket (sent as null)"
        if list.entries != nil { delete.addCSSClass("destructive-action") }
        delete.onClicked(
            weakly(self) { window in
                window.editLists { draft in
                    let original = draft.originalReferences[name] ?? []
                    draft.updateList(name) { $0.entries = $0.entries == nil ? original : nil }
                }
            })
        let buttons = Box(vertical: false, spacing: 6)
        buttons.setMargins(8)
        picker.button.expand(horizontally: true)
        buttons.append(picker.button)
        buttons.append(clear)
        buttons.append(delete)
        row.addRow(buttons)
        return ListControls(row: row, addEntryRow: addEntry, picker: picker, clear: clear, delete: delete, entries: entryRows)
    }

    private func append(_ entry: String, to name: String) {
        editLists { $0.updateList(name) { $0.entries = ($0.entries ?? []) + [entry] } }
        listControls[name]?.addEntryRow.grabFocus()
    }

    /// New List: an empty list with the name typed (a name taken is said at the row).
    func addList() {
        let name = newListRow.asEditable.text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return }
        var added = false
        editLists { added = $0.addList(named: name) }
        if added {
            newListRow.asEditable.text = ""
            listControls[name]?.addEntryRow.grabFocus()
        } else {
            problemLabel.show("There is a list named “\(name)” already.")
        }
    }

    /// Looks up the names of entries that are instance ids (once each).
    func lookUpNames() {
        let ids = Set((draft?.references ?? []).flatMap { $0.entries ?? [] }).filter {
            FieldKind.isInstanceID($0) && instanceNames[$0] == nil
        }
        guard !ids.isEmpty else { return }
        let lookUp = services.lookUp
        Task { @MainActor in
            let found = await lookUp(Array(ids))
            guard !found.isEmpty else { return }
            instanceNames.merge(found) { _, new in new }
            renderLists()
        }
    }
}
