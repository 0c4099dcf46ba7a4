import CAdw
import CGtk
import Foundation
import HaloServices

/// One field of a module, new or edited (`field-dialog.ui`): name, type, the type's options
/// (choices for choice types, Days Only for dates) and a description. Editing a field's type or
/// choices shows, as it is chosen, what becomes of the values instances hold (the server's dry
/// run); saving a change that would clear values asks first, naming a few of them.
@MainActor
final class FieldDialog {
    let window: Window
    let nameRow: EntryRow
    let typeRow: ComboRow
    let choicesRow: EntryRow
    let dateOnlySwitch: Switch
    let descriptionRow: EntryRow
    let saveButton: Button
    let reportLabel: Label
    let problemLabel: Label
    private let dateOnlyRow: Widget
    private let core: CoreManager
    private let moduleId: String
    /// The field being edited (nil: a new one).
    private let existing: ModuleField?
    /// Called with the module as the server has it after the change, and what became of the values.
    private let onSaved: @MainActor (Module, FieldChangeReport?) -> Void
    /// Offered before values are cleared: export the module's instances first.
    private let onExportRequested: @MainActor () -> Void
    /// The confirmation shown before values are cleared (tests answer it).
    private(set) var pendingDialog: ConfirmationDialog?
    /// Dry runs and saves finished (tests wait on it).
    private(set) var completedRequests = 0
    private var previewTask: Task<Void, Never>?

    /// The types in the order the Type row lists them.
    static let types = FieldType.allCases

    init(
        parent: Widget, core: CoreManager, moduleId: String, editing existing: ModuleField?,
        onExportRequested: @escaping @MainActor () -> Void, onSaved: @escaping @MainActor (Module, FieldChangeReport?) -> Void
    ) throws {
        self.onExportRequested = onExportRequested
        self.core = core
        self.moduleId = moduleId
        self.existing = existing
        self.onSaved = onSaved
        let builder = try Builder(ui: "field-dialog")
        window = try builder.object("field_dialog")
        nameRow = try builder.object("field_name_row")
        typeRow = try builder.object("field_type_row")
        choicesRow = try builder.object("choices_row")
        dateOnlySwitch = try builder.object("date_only_switch")
        dateOnlyRow = try builder.object("date_only_row")
        descriptionRow = try builder.object("description_row")
        saveButton = try builder.object("save_button")
        reportLabel = try builder.object("report_label")
        problemLabel = try builder.object("problem_label")
        let cancel: Button = try builder.object("cancel_button")
        typeRow.setItems(Self.types.map(\.name))
        if let existing {
            let title = "Edit “\(existing.name)”"
            window.title = title
            try builder.object("dialog_title", as: WindowTitle.self).title = title
            saveButton.label = "_Save"
            let definition = FieldDefinition(existing)
            nameRow.asEditable.text = definition.name
            typeRow.selectedIndex = Self.types.firstIndex(of: definition.type) ?? 0
            choicesRow.asEditable.text = (definition.choices ?? []).joined(separator: ", ")
            dateOnlySwitch.isOn = definition.dateOnly
            descriptionRow.asEditable.text = definition.description
        }
        window.setTransient(for: parent)
        cancel.onClicked(weakly(self) { $0.window.close() })
        saveButton.onClicked(weakly(self) { $0.save() })
        nameRow.onEntryActivated(weakly(self) { dialog in if dialog.saveButton.isSensitive { dialog.save() } })
        for row in [nameRow, choicesRow, descriptionRow] { row.onChanged(weakly(self) { $0.formChanged() }) }
        typeRow.onSelectionChanged(weakly(self) { $0.formChanged() })
        dateOnlySwitch.onStateSet { [weak self] _ in
            Task { @MainActor in self?.formChanged() }
            return false
        }
        formChanged()
    }

    func present() {
        window.present()
        nameRow.grabFocus()
    }

    var selectedType: FieldType { Self.types[min(max(typeRow.selectedIndex, 0), Self.types.count - 1)] }

    /// The field as the form says it.
    var definition: FieldDefinition {
        let type = selectedType
        let choices =
            type.takesChoices
            ? choicesRow.asEditable.text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } : nil
        return FieldDefinition(
            nameRow.asEditable.text.trimmingCharacters(in: .whitespaces), type,
            description: descriptionRow.asEditable.text.trimmingCharacters(in: .whitespaces), choices: choices,
            dateOnly: type == .date && dateOnlySwitch.isOn)
    }

    /// Whether the change touches the values instances hold (type, choices, days only).
    private var changesValues: Bool {
        guard let existing else { return false }
        let before = FieldDefinition(existing), after = definition
        return before.type != after.type || (before.choices ?? []) != (after.choices ?? []) || before.dateOnly != after.dateOnly
    }

    private func formChanged() {
        let type = selectedType
        choicesRow.isVisible = type.takesChoices
        dateOnlyRow.isVisible = type == .date
        problemLabel.isVisible = false
        nameRow.removeCSSClass("error")
        saveButton.isSensitive = !definition.name.isEmpty && (!type.takesChoices || !(definition.choices ?? []).isEmpty)
        previewValues()
    }

    /// Asks the server what the change would do to stored values and says it under the form.
    private func previewValues() {
        previewTask?.cancel()
        guard let existing, let fieldId = existing.id, changesValues else {
            reportLabel.isVisible = false
            return
        }
        let core = core, moduleId = moduleId, definition = definition
        previewTask = Task { @MainActor in
            defer { self.completedRequests += 1 }
            guard
                let report = try? await core.content.changeField(fieldId, ofModule: moduleId, to: definition, dryRun: true).report,
                !Task.isCancelled
            else { return }
            self.reportLabel.text = Self.sentence(report, type: definition.type)
            self.reportLabel.isVisible = true
        }
    }

    /// "3 instances hold a value: 2 stay as they are, 1 is converted, none is cleared."
    static func sentence(_ report: FieldChangeReport, type: FieldType) -> String {
        guard report.holding > 0 else { return "No instance holds a value for this field yet." }
        var parts: [String] = []
        if report.kept > 0 {
            parts.append("\(report.kept) \(report.kept == 1 ? "stays" : "stay") as \(report.kept == 1 ? "it is" : "they are")")
        }
        if report.converted > 0 { parts.append("\(report.converted) \(report.converted == 1 ? "is" : "are") converted to \(type.name)") }
        parts.append(report.refused == 0 ? "none is cleared" : "\(report.refused) cannot be kept and would be cleared")
        let holding = report.holding == 1 ? "1 instance holds a value" : "\(report.holding) instances hold a value"
        return "\(holding): \(parts.joined(separator: ", "))."
    }

    func save() {
        let definition = definition
        saveButton.isSensitive = false
        let core = core, moduleId = moduleId
        Task { @MainActor in
            defer {
                self.completedRequests += 1
                self.saveButton.isSensitive = true
            }
            do throws(HaloError) {
                guard let existing = self.existing, let fieldId = existing.id else {
                    let module = try await core.content.addField(definition, toModule: moduleId)
                    self.finish(module, nil)
                    return
                }
                if self.changesValues {
                    let preview = try await core.content.changeField(fieldId, ofModule: moduleId, to: definition, dryRun: true).report
                    if preview.refused > 0 {
                        self.confirmClearing(preview, definition: definition, fieldId: fieldId)
                        return
                    }
                }
                let changed = try await core.content.changeField(fieldId, ofModule: moduleId, to: definition)
                self.finish(changed.module, changed.report)
            } catch {
                self.showProblem(error)
            }
        }
    }

    /// Values would be cleared: say which, and change only when the user agrees.
    private func confirmClearing(_ report: FieldChangeReport, definition: FieldDefinition, fieldId: String) {
        let examples = report.examples.prefix(3).map { "\($0.instanceName) (\($0.value.jsonString()))" }.joined(separator: ", ")
        let count = report.refused == 1 ? "1 value" : "\(report.refused) values"
        let dialog = ConfirmationDialog(
            parent: window, heading: "Clear \(count)?",
            body:
                "\(count) of “\(existing?.name ?? definition.name)” cannot be kept as \(definition.type.name): \(examples)\(report.refused > 3 ? ", …" : ""). Export the module's instances first if you need them.",
            confirmLabel: "_Clear and Change", confirmId: "clear", destructive: true)
        dialog.addResponse("export", label: "_Export First…", isDefault: false)
        dialog.onResponse { [weak self] response in
            guard let self else { return }
            self.pendingDialog = nil
            if response == "export" { return self.onExportRequested() }
            guard response == "clear" else { return }
            let core = self.core, moduleId = self.moduleId
            Task { @MainActor in
                defer { self.completedRequests += 1 }
                do throws(HaloError) {
                    let changed = try await core.content.changeField(fieldId, ofModule: moduleId, to: definition, refusedValues: .clear)
                    self.finish(changed.module, changed.report)
                } catch {
                    self.showProblem(error)
                }
            }
        }
        pendingDialog = dialog
        dialog.present()
    }

    private func finish(_ module: Module?, _ report: FieldChangeReport?) {
        if let module { onSaved(module, report) }
        window.close()
    }

    private func showProblem(_ error: HaloError) {
        problemLabel.text = error.sentence
        problemLabel.isVisible = true
        if error.sentence.lowercased().contains("name") {
            nameRow.addCSSClass("error")
            nameRow.grabFocus()
        }
    }
}

extension FieldType {
    /// The symbolic icon Module Settings shows beside a field of this type.
    var iconName: String {
        switch self {
        case .text: "format-text-plaintext-symbolic"
        case .longText: "format-justify-left-symbolic"
        case .number: "accessories-calculator-symbolic"
        case .website, .youtube: "web-browser-symbolic"
        case .image: "image-x-generic-symbolic"
        case .video: "video-x-generic-symbolic"
        case .audio: "audio-x-generic-symbolic"
        case .date: "x-office-calendar-symbolic"
        case .time: "preferences-system-time-symbolic"
        case .boolean: "checkbox-checked-symbolic"
        case .color: "color-select-symbolic"
        case .singleRelation: "insert-link-symbolic"
        case .multipleRelation: "emblem-documents-symbolic"
        case .object: "document-properties-symbolic"
        case .list: "view-list-bullet-symbolic"
        case .localizedText: "preferences-desktop-locale-symbolic"
        case .singleChoice, .singleSelectDropdown: "radio-checked-symbolic"
        case .multipleChoice, .multipleSelectDropdown: "edit-select-all-symbolic"
        }
    }
}
