import CGtk
import HaloServices

/// The detail pane when several instances are selected: delete them all, or set one field on
/// all of them, through one batch request; the result lists what failed and why.
@MainActor
final class BulkPanel {
    let widget: Widget
    private let box = Box(vertical: true, spacing: 8)
    private let heading = Label("", classes: ["title-2"])
    let fieldChooser = DropDown(accessibleLabel: "Field to change")
    let valueEntry = Editable.entry(accessibleLabel: "New value for the chosen field", placeholder: "New value")
    let applyButton = Button(label: "Apply to Selection")
    let deleteButton = Button(label: "Delete Selection…")
    let report = Label("", classes: [], wrap: true, selectable: true)
    private(set) var fields: [FieldDescriptor] = []
    var onApply: (@MainActor (FieldDescriptor, String) -> Void)?
    var onDelete: (@MainActor () -> Void)?

    init() {
        box.setMargins(18)
        box.append(heading)
        box.append(Label("Set one field on every selected instance", classes: ["heading"]))
        let row = Box(vertical: false, spacing: 6)
        row.append(fieldChooser)
        valueEntry.expand(horizontally: true)
        row.append(valueEntry)
        box.append(row)
        applyButton.addCSSClass("suggested-action")
        applyButton.setAccessibleLabel("Apply the value to every selected instance")
        deleteButton.addCSSClass("destructive-action")
        deleteButton.setAccessibleLabel("Delete every selected instance")
        let buttons = Box(vertical: false, spacing: 6)
        buttons.append(applyButton)
        buttons.append(deleteButton)
        box.append(buttons)
        box.append(report)
        let scroller = ScrolledWindow(child: box)
        scroller.expand(horizontally: true, vertically: true)
        widget = scroller
        applyButton.onClicked { [weak self] in
            guard let self else { return }
            guard let index = self.fieldChooser.selectedIndex, self.fields.indices.contains(index) else { return }
            self.onApply?(self.fields[index], self.valueEntry.text)
        }
        deleteButton.onClicked { [weak self] in guard let self else { return }; self.onDelete?() }
    }

    /// Prepares the panel for `count` selected instances whose fields are `fields`.
    func show(count: Int, fields: [FieldDescriptor]) {
        heading.text = "\(count) instances selected"
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
    /// "3 of 4 updated." then "• “Name”: reason" for each failure; `names` maps position → name.
    static func text(verb: String, result: BatchResult, names: [String], skipped: [String] = []) -> String {
        let succeeded = result.succeeded.count
        let total = names.count + skipped.count
        var lines = ["\(succeeded) of \(total) \(verb)."]
        for failure in result.failed.sorted(by: { $0.position < $1.position }) {
            let name = names.indices.contains(failure.position) ? names[failure.position] : "Item \(failure.position + 1)"
            let reason = failure.error.map { "\($0.message) (HTTP \($0.status))" } ?? "failed without a reason"
            lines.append("• “\(name)”: \(reason)")
        }
        for name in skipped { lines.append("• “\(name)”: not loaded yet, skipped") }
        return lines.joined(separator: "\n")
    }
}
