import CGtk
import HaloServices

/// The detail pane when several instances are selected: delete them all, or set one field on
/// all of them, through one batch request; the result lists what failed and why.
@MainActor
final class BulkPanel {
    let widget: Widget
    let fieldChooser: DropDown
    let valueEntry: Editable
    let applyButton: Button
    let deleteButton: Button
    let report: Label
    private(set) var fields: [FieldDescriptor] = []
    var onApply: (@MainActor (FieldDescriptor, String) -> Void)?
    var onDelete: (@MainActor () -> Void)?

    /// Loads `Resources/ui/bulk-panel.ui`.
    init() throws {
        let builder = try Builder(ui: "bulk-panel")
        widget = try builder.object("bulk_panel")
        fieldChooser = try builder.object("field_chooser")
        valueEntry = try builder.object("value_entry")
        applyButton = try builder.object("apply_button")
        deleteButton = try builder.object("delete_selection_button")
        report = try builder.object("report_label")
        applyButton.onClicked { [weak self] in
            guard let self else { return }
            guard let index = self.fieldChooser.selectedIndex, self.fields.indices.contains(index) else { return }
            self.onApply?(self.fields[index], self.valueEntry.text)
        }
        deleteButton.onClicked(weakly(self) { $0.onDelete?() })
    }

    /// Prepares the panel for a new selection whose instances have `fields` (the detail header
    /// says how many are selected).
    func show(fields: [FieldDescriptor]) {
        updateFields(fields)
        report.text = ""
    }

    /// Offers `fields` in the chooser (more become known as pages load), keeping the choice.
    func updateFields(_ fields: [FieldDescriptor]) {
        guard fields != self.fields else { return }
        let chosen = fieldChooser.selectedItem
        self.fields = fields
        fieldChooser.setItems(fields.map(\.name))
        fieldChooser.selectedIndex = fields.firstIndex { $0.name == chosen } ?? (fields.isEmpty ? nil : 0)
    }

    /// Shows the outcome of a batch: a summary line, then one line per failed instance.
    func showReport(_ text: String) { report.text = text }
}

/// The per-item outcome of a bulk operation, as text.
enum BulkReport {
    /// At most this many names are listed under one reason ("and 12 more").
    static let namesPerReason = 5

    /// "3 of 4 updated." then one line per reason, in the order the reasons first occur:
    /// "• The instance does not exist: “A”, “B”"; `names` maps position → name.
    static func text(verb: String, result: BatchResult, names: [String], skipped: [String] = []) -> String {
        let succeeded = result.succeeded.count
        let total = names.count + skipped.count
        var reasons: [String] = []
        var namesByReason: [String: [String]] = [:]
        func add(_ name: String, _ reason: String) {
            if namesByReason[reason] == nil { reasons.append(reason) }
            namesByReason[reason, default: []].append(name)
        }
        for failure in result.failed.sorted(by: { $0.position < $1.position }) {
            let name = names.indices.contains(failure.position) ? names[failure.position] : "Item \(failure.position + 1)"
            add(name, failure.error.map(reason(of:)) ?? "Failed without a reason")
        }
        for name in skipped { add(name, "Not loaded yet, skipped") }
        let lines = reasons.map { reason -> String in
            let all = namesByReason[reason] ?? []
            let listed = all.prefix(namesPerReason).map { "“\($0)”" }.joined(separator: ", ")
            let more = all.count > namesPerReason ? " and \(all.count - namesPerReason) more" : ""
            return "• \(reason.hasSuffix(".") ? String(reason.dropLast()) : reason): \(listed)\(more)"
        }
        return (["\(succeeded) of \(total) \(verb)."] + lines).joined(separator: "\n")
    }

    /// Why one operation of the batch failed, said so that failures with one cause group: the
    /// server's words for a missing instance or a missing right name the instance's id.
    private static func reason(of error: BatchOperationError) -> String {
        switch error.status {
        case 404: return "It no longer exists on the server"
        case 403: return "This account may not make that change"
        default: return error.haloError.sentence
        }
    }
}
