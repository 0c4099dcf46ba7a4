import CAdw
import CGtk
import Foundation
import HaloServices

/// Module Settings (`module-settings.ui`; main menu → Module Settings, or right after New Module):
/// the module's name (Enter or the apply button renames it), its fields in the editor's order with
/// their type icon, type and choices (move up and down, edit in a `FieldDialog`, remove with the
/// count of values that go), Add Field, and Delete Module (with its instance count). Every change
/// goes to the server at once (docs/protocol.md §23.10); `onChanged` lets the workspace read its
/// modules again.
@MainActor
final class ModuleSettingsWindow {
    let window: Window
    let nameRow: EntryRow
    let addFieldButton: Button
    let deleteModuleButton: Button
    let exportCSVButton: Button
    let exportJSONButton: Button
    let importButton: Button
    let importCancelButton: Button
    let importProgressRow: ActionRow
    let importProgress: Widget
    /// The import running, if any (Cancel cancels it).
    var importTask: Task<Void, Never>?
    private let title: WindowTitle
    private let fieldsGroup: PreferencesGroup
    private let toastOverlay: Widget
    let core: CoreManager
    let onChanged: @MainActor (_ deleted: Bool) -> Void
    /// The module as last read, with its fields.
    private(set) var module: Module
    /// The field rows, in order, with their buttons by purpose (tests press them as a user would).
    private(set) var fieldRows: [FieldRow] = []
    private var emptyRow: ActionRow?
    /// The open field dialog and the pending confirmation (tests answer them).
    private(set) var fieldDialog: FieldDialog?
    var pendingDialog: ConfirmationDialog?
    /// Requests finished, successful or not (tests wait on it).
    var completedRequests = 0

    struct FieldRow {
        let field: ModuleField
        let row: ActionRow
        let up: Button
        let down: Button
        let edit: Button
        let remove: Button
    }

    init(parent: Widget, core: CoreManager, module: Module, onChanged: @escaping @MainActor (_ deleted: Bool) -> Void) throws {
        self.core = core
        self.module = module
        self.onChanged = onChanged
        let builder = try Builder(ui: "module-settings")
        window = try builder.object("module_window")
        nameRow = try builder.object("name_row")
        addFieldButton = try builder.object("add_field_button")
        deleteModuleButton = try builder.object("delete_module_button")
        title = try builder.object("window_title")
        fieldsGroup = try builder.object("fields_group")
        toastOverlay = try builder.object("toast_overlay")
        exportCSVButton = try builder.object("export_csv_button")
        exportJSONButton = try builder.object("export_json_button")
        importButton = try builder.object("import_button")
        importCancelButton = try builder.object("import_cancel_button")
        importProgressRow = try builder.object("import_progress_row")
        importProgress = try builder.object("import_progress")
        window.setTransient(for: parent)
        exportCSVButton.onClicked(weakly(self) { $0.chooseExportFile(.csv) })
        exportJSONButton.onClicked(weakly(self) { $0.chooseExportFile(.json) })
        importButton.onClicked(weakly(self) { $0.chooseImportFile() })
        importCancelButton.onClicked(weakly(self) { $0.importTask?.cancel() })
        nameRow.onApply(weakly(self) { $0.rename() })
        addFieldButton.onClicked(weakly(self) { $0.showFieldDialog(editing: nil) })
        deleteModuleButton.onClicked(weakly(self) { $0.confirmDeletion() })
        show(module)
    }

    func present() {
        window.present()
        if module.fields?.isEmpty ?? true { addFieldButton.grabFocus() }
    }

    /// Shows `module` as the server now has it.
    func show(_ module: Module) {
        self.module = module
        let name = module.name ?? ""
        title.title = name
        title.subtitle = "Module Settings"
        if nameRow.asEditable.text != name { nameRow.asEditable.text = name }
        for entry in fieldRows { fieldsGroup.remove(entry.row) }
        fieldRows = []
        if let emptyRow { fieldsGroup.remove(emptyRow) }
        emptyRow = nil
        let fields = module.fields ?? []
        if fields.isEmpty {
            let row = ActionRow(title: "No fields yet", subtitle: "Add the fields its instances hold: text, numbers, dates, choices…")
            fieldsGroup.add(row)
            emptyRow = row
        }
        for (index, field) in fields.enumerated() { fieldRows.append(makeRow(field, index: index, count: fields.count)) }
    }

    private func makeRow(_ field: ModuleField, index: Int, count: Int) -> FieldRow {
        let type = field.fieldType?.type
        var subtitle = type?.name ?? field.fieldType?.name ?? "Unknown type"
        if let choices = field.choices, !choices.isEmpty { subtitle += ": " + choices.joined(separator: ", ") }
        if field.isDateOnly { subtitle += ", days only" }
        let row = ActionRow(title: field.name, subtitle: subtitle)
        let icon = Widget(sinking: UnsafeMutableRawPointer(gtk_image_new_from_icon_name(type?.iconName ?? "dialog-question-symbolic")))
        icon.setAccessibleLabel(type?.name ?? "Unknown type")
        row.addPrefix(icon)
        let up = Button(iconName: "go-up-symbolic", accessibleLabel: "Move \(field.name) up", tooltip: "Move up")
        let down = Button(iconName: "go-down-symbolic", accessibleLabel: "Move \(field.name) down", tooltip: "Move down")
        let edit = Button(iconName: "document-edit-symbolic", accessibleLabel: "Edit \(field.name)", tooltip: "Edit the field")
        let remove = Button(iconName: "user-trash-symbolic", accessibleLabel: "Remove \(field.name)", tooltip: "Remove the field")
        up.isSensitive = index > 0
        down.isSensitive = index < count - 1
        for button in [up, down, edit, remove] {
            button.centerVertically()
            row.addSuffix(button)
        }
        up.onClicked(weakly(self) { $0.move(field, by: -1) })
        down.onClicked(weakly(self) { $0.move(field, by: 1) })
        edit.onClicked(weakly(self) { $0.showFieldDialog(editing: field) })
        remove.onClicked(weakly(self) { $0.confirmRemoval(of: field) })
        row.setActivatableWidget(edit)
        fieldsGroup.add(row)
        return FieldRow(field: field, row: row, up: up, down: down, edit: edit, remove: remove)
    }

    // MARK: Changes

    func showFieldDialog(editing field: ModuleField?) {
        guard let moduleId = module.id else { return }
        do {
            let dialog = try FieldDialog(
                parent: window, core: core, moduleId: moduleId, editing: field,
                onExportRequested: { [weak self] in self?.chooseExportFile(.csv) }
            ) { [weak self] module, report in
                guard let self else { return }
                self.show(module)
                self.onChanged(false)
                // The row shows an added or renamed field; a toast says only what the rows cannot.
                if let message = Self.savedMessage(field: field, report: report) { self.toast(message) }
            }
            fieldDialog = dialog
            dialog.present()
        } catch {
            toast("Could not open the field: \(error)")
        }
    }

    /// What became of the values when a field changed (nil when nothing but the row changed).
    static func savedMessage(field: ModuleField?, report: FieldChangeReport?) -> String? {
        guard let field, let report, report.converted + report.refused > 0 else { return nil }
        var parts: [String] = []
        if report.converted > 0 { parts.append("\(report.converted) converted") }
        if report.refused > 0 { parts.append("\(report.refused) cleared") }
        return "“\(field.name)” saved: values \(parts.joined(separator: ", "))."
    }

    private func rename() {
        guard let moduleId = module.id else { return }
        let name = nameRow.asEditable.text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name != module.name else {
            nameRow.asEditable.text = module.name ?? ""
            return
        }
        perform("Could not rename the module") { core in
            let renamed = try await core.content.renameModule(id: moduleId, to: name)
            return (renamed, "Renamed to “\(name)”.")
        }
    }

    private func move(_ field: ModuleField, by offset: Int) {
        guard let moduleId = module.id, var ids = module.fields?.compactMap(\.id), let fieldId = field.id,
            let index = ids.firstIndex(of: fieldId), ids.indices.contains(index + offset)
        else { return }
        ids.swapAt(index, index + offset)
        perform("Could not move the field") { core in (try await core.content.reorderFields(ofModule: moduleId, as: ids), nil) }
    }

    /// Counts the values that go with the field, then asks.
    private func confirmRemoval(of field: ModuleField) {
        guard let moduleId = module.id, let fieldId = field.id else { return }
        let core = core
        Task { @MainActor in
            do throws(HaloError) {
                let report = try await core.content.removeField(fieldId, ofModule: moduleId, dryRun: true).report
                let body =
                    report.holding == 0
                    ? "No instance holds a value for it."
                    : "\(report.holding == 1 ? "1 instance holds a value" : "\(report.holding) instances hold a value") for it, which will be deleted on every device. Export the module's instances first if you need them."
                self.ask(heading: "Remove “\(field.name)”?", body: body, confirm: "_Remove") {
                    self.perform("Could not remove the field") { core in
                        (try await core.content.removeField(fieldId, ofModule: moduleId).module, "“\(field.name)” removed.")
                    }
                }
            } catch {
                self.toast("Could not remove the field: \(error.sentence)")
            }
            self.completedRequests += 1
        }
    }

    private func confirmDeletion() {
        guard let moduleId = module.id else { return }
        let name = module.name ?? "this module"
        let core = core
        Task { @MainActor in
            let count =
                (try? await core.content.search(query: SearchQuery().moduleIds([moduleId]).pagination(page: 1, limit: 1)))?
                .paginationInfo.totalItems ?? 0
            let instances =
                count == 0 ? "It holds no instances." : "Its \(count == 1 ? "instance is" : "\(count) instances are") deleted with it."
            self.ask(
                heading: "Delete “\(name)”?", body: "\(instances) Devices that sync it remove them too. This cannot be undone.",
                confirm: "_Delete Module"
            ) {
                Task { @MainActor in
                    defer { self.completedRequests += 1 }
                    do throws(HaloError) {
                        _ = try await core.content.deleteModule(id: moduleId)
                        self.onChanged(true)
                        self.window.close()
                    } catch {
                        self.toast("Could not delete the module: \(error.sentence)")
                    }
                }
            }
            self.completedRequests += 1
        }
    }

    func ask(heading: String, body: String, confirm: String, destructive: Bool = true, _ action: @escaping @MainActor () -> Void) {
        let dialog = ConfirmationDialog(
            parent: window, heading: heading, body: body, confirmLabel: confirm, confirmId: "confirm", destructive: destructive)
        dialog.onResponse { [weak self] response in
            self?.pendingDialog = nil
            if response == "confirm" { action() }
        }
        pendingDialog = dialog
        dialog.present()
    }

    /// Runs a change; shows the module it answers and says `message` (or the error after `failure`).
    private func perform(_ failure: String, _ change: @escaping @MainActor (CoreManager) async throws -> (Module?, String?)) {
        let core = core
        Task { @MainActor in
            defer { self.completedRequests += 1 }
            do {
                let (module, message) = try await change(core)
                if let module { self.show(module) }
                self.onChanged(false)
                if let message { self.toast(message) }
            } catch {
                self.show(self.module)
                self.toast("\(failure): \((error as? HaloError)?.sentence ?? "\(error)")")
            }
        }
    }

    func toast(_ message: String) {
        Toast(message).show(in: toastOverlay)
    }
}
