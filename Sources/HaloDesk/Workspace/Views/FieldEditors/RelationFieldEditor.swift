import CAdw
import CGtk
import HaloServices

/// Related instances, by name: chips (the name opens the instance, ✕ removes it) and a
/// search-as-you-type picker to add one (a single relation: to choose or change it).
@MainActor
final class RelationFieldEditor: FieldEditorState, FieldEditor {
    let chips: ChipBox
    let picker: InstancePicker
    let widget: Widget
    var focusTarget: Widget { picker.button }
    private(set) var ids: [String]
    private var isSingle: Bool { field.kind == .relation }

    init(_ context: FieldEditorContext) {
        let field = context.field
        if let array = context.stored?.arrayValue {
            ids = array.compactMap(\.stringValue)
        } else {
            ids = context.stored?.stringValue.map { [$0] } ?? []
        }
        chips = ChipBox(
            accessibleLabel: "\(field.name): related instances", openVerb: "Open related instance", onOpen: context.openInstance,
            onRemove: { _ in })
        let single = field.kind == .relation
        picker = InstancePicker(
            shown: nil, placeholder: single ? "Choose an instance…" : "Add an instance…",
            accessibleLabel: single ? "Choose \(field.name)" : "Add to \(field.name)", search: context.search, onPick: { _ in })
        let column = Box(vertical: true, spacing: 6)
        column.append(chips.widget)
        gtk_widget_set_halign(picker.button.widget, GTK_ALIGN_START)
        column.append(picker.button)
        widget = column
        super.init(context: context)
        chips.onRemove = weakly(self) { editor, id in editor.remove(id) }
        picker.onPick = weakly(self) { editor, choice in editor.add(choice) }
        chips.show(ids)
        showPickerLabel()
    }

    /// Shows instance names in place of ids.
    func name(_ names: [String: String]) { chips.name(names) }

    func value() throws(FieldValueError) -> JSONValue? {
        if isSingle { return ids.first.map(JSONValue.string) }
        return ids.isEmpty ? nil : .array(ids.map(JSONValue.string))
    }

    private func add(_ choice: InstanceChoice) {
        chips.name([choice.id: choice.name])
        if isSingle {
            ids = [choice.id]
        } else if !ids.contains(choice.id) {
            ids.append(choice.id)
        }
        chips.show(ids)
        showPickerLabel()
        userChanged()
    }

    private func remove(_ id: String) {
        ids.removeAll { $0 == id }
        chips.show(ids)
        showPickerLabel()
        userChanged()
        _ = picker.button.grabFocus()
    }

    /// The picker says what it does next (a chosen single relation is changed, not added to).
    private func showPickerLabel() {
        let label = isSingle ? (ids.isEmpty ? "Choose an instance…" : "Change…") : "Add an instance…"
        picker.button.label = label
        picker.button.setAccessibleLabel((isSingle ? "Choose \(field.name)" : "Add to \(field.name)") + ": \(label)")
    }
}
