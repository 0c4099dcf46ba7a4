import CAdw
import CGtk
import HaloServices

/// One of the field's choices (single choice, single select drop-down), or none.
@MainActor
final class ChoiceFieldEditor: FieldEditorState, FieldEditor {
    let picker: OptionPicker
    let clearButton: Button
    let widget: Widget
    var focusTarget: Widget { picker.button }
    private(set) var chosen: String?

    init(_ context: FieldEditorContext) {
        let field = context.field
        let stored = context.stored?.stringValue
        chosen = stored
        let index = stored.flatMap { field.choices.firstIndex(of: $0) }
        // A stored value that is no longer a choice is shown as it is, and said to be wrong.
        picker = OptionPicker(
            options: field.choices, selected: index, placeholder: stored ?? "Choose…", accessibleLabel: field.name, onPick: { _ in })
        (widget, clearButton) = FieldEditors.clearable(picker.button, field: field.name, tooltip: "No choice")
        super.init(context: context)
        picker.onPick = weakly(self) { editor, index in editor.choose(field.choices[index]) }
        clearButton.onClicked(weakly(self) { $0.choose(nil) })
        clearButton.isSensitive = stored != nil
        if let stored, index == nil { context.problem(notAChoice(stored)) }
    }

    func value() throws(FieldValueError) -> JSONValue? {
        guard let chosen else { return nil }
        guard field.choices.contains(chosen) else { throw context.error(notAChoice(chosen)) }
        return .string(chosen)
    }

    private func choose(_ choice: String?) {
        chosen = choice
        if choice == nil { picker.showUnchosen("Choose…") }
        clearButton.isSensitive = choice != nil
        context.problem(nil)
        userChanged()
    }

    private func notAChoice(_ value: String) -> String {
        "“\(field.name)” is “\(value)”, which is not one of its choices: pick one of \(field.choices.joined(separator: ", "))."
    }
}

/// Any of the field's choices (multiple choice, multiple select drop-down): one toggle button
/// each, pressed while chosen.
@MainActor
final class MultipleChoiceFieldEditor: FieldEditorState, FieldEditor {
    /// One per choice, in the field's order, then one per stored value that is not a choice.
    private(set) var checks: [(choice: String, button: ToggleButton)] = []
    let widget: Widget
    var focusTarget: Widget { checks.first?.button ?? widget }
    /// The stored order: values kept keep their place, new ones follow.
    private let storedValues: [String]

    init(_ context: FieldEditorContext) {
        let field = context.field
        storedValues = context.stored?.arrayValue?.map { $0.stringValue ?? $0.jsonString() } ?? []
        let flow = Widget(sinking: UnsafeMutableRawPointer(gtk_flow_box_new()))
        gtk_flow_box_set_selection_mode(OpaquePointer(flow.raw), GTK_SELECTION_NONE)
        gtk_flow_box_set_max_children_per_line(OpaquePointer(flow.raw), 6)
        flow.setAccessibleLabel(field.name)
        widget = flow
        super.init(context: context)
        let strays = storedValues.filter { !field.choices.contains($0) }
        for choice in field.choices + strays {
            let check = ToggleButton(label: field.choices.contains(choice) ? choice : "\(choice) (not a choice)")
            check.addCSSClass("pill")
            check.addCSSClass("small-pill")
            check.isActive = storedValues.contains(choice)
            check.onToggled(weakly(self) { $0.toggled() })
            gtk_flow_box_insert(OpaquePointer(flow.raw), check.widget, -1)
            checks.append((choice, check))
        }
        if !strays.isEmpty { context.problem(notChoices(strays)) }
    }

    /// The choices on, stored ones first in their order.
    var chosen: [String] {
        let on = checks.filter { $0.button.isActive }.map(\.choice)
        return storedValues.filter(on.contains) + on.filter { !storedValues.contains($0) }
    }

    func value() throws(FieldValueError) -> JSONValue? {
        let chosen = chosen
        let strays = chosen.filter { !field.choices.contains($0) }
        guard strays.isEmpty else { throw context.error(notChoices(strays)) }
        return chosen.isEmpty ? nil : .array(chosen.map(JSONValue.string))
    }

    private func toggled() {
        let strays = chosen.filter { !field.choices.contains($0) }
        context.problem(strays.isEmpty ? nil : notChoices(strays))
        userChanged()
    }

    private func notChoices(_ values: [String]) -> String {
        "“\(field.name)” has \(values.map { "“\($0)”" }.joined(separator: ", ")), not among its choices: untick it to save."
    }
}
