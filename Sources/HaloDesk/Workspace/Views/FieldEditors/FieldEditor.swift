import CAdw
import CGtk
import HaloServices

/// The editor of one field of an instance, chosen by the field's type (`FieldEditors.make`):
/// each refuses, at the field and in words, what its type cannot hold.
@MainActor
protocol FieldEditor: AnyObject {
    var widget: Widget { get }
    /// Where the keyboard goes when the value needs correcting.
    var focusTarget: Widget { get }
    /// Whether the user changed the value: an untouched field keeps its stored value exactly
    /// (a date shown to the minute keeps its seconds, a list its formatting).
    var isEdited: Bool { get }
    /// The value to store (nil clears the field), or what is wrong with it.
    func value() throws(FieldValueError) -> JSONValue?
}

/// What an editor gets from the instance editor.
@MainActor
struct FieldEditorContext {
    let field: FieldDescriptor
    /// The value as stored (nil: none).
    let stored: JSONValue?
    /// Finds instances by name for relation pickers.
    let search: InstanceSearch
    /// Opens a related instance.
    let openInstance: @MainActor (String) -> Void
    /// Opens a web address in the user's browser or player.
    let openLink: @MainActor (String) -> Void
    let imageLoader: ImageLoader
    /// The user changed the value.
    let changed: @MainActor () -> Void
    /// What is wrong with the value as it stands, said under the field now (nil: nothing).
    let problem: @MainActor (String?) -> Void

    func error(_ sentence: String) -> FieldValueError { FieldValueError(sentence, field: field.name) }
}

/// What every editor keeps: its context and whether the user changed the value.
@MainActor
class FieldEditorState {
    let context: FieldEditorContext
    private(set) var isEdited = false

    init(context: FieldEditorContext) { self.context = context }

    var field: FieldDescriptor { context.field }

    /// Call on every change the user makes.
    func userChanged() {
        isEdited = true
        context.changed()
    }
}

enum FieldEditors {
    /// `control` linked with a button that clears the field (choices, dates).
    @MainActor
    static func clearable(_ control: Widget, field: String, tooltip: String) -> (row: Widget, clearButton: Button) {
        let clearButton = Button(iconName: "edit-clear-symbolic", accessibleLabel: "Clear \(field)", tooltip: tooltip)
        let row = Box(vertical: false)
        row.addCSSClass("linked")
        row.append(control)
        row.append(clearButton)
        gtk_widget_set_halign(row.widget, GTK_ALIGN_START)
        return (row, clearButton)
    }

    /// The editor for a field: by its declared type where the type needs its own (colors,
    /// choices), else by the kind of value it holds.
    @MainActor
    static func make(_ context: FieldEditorContext) -> any FieldEditor {
        let field = context.field
        switch field.type {
        case .color?: return ColorFieldEditor(context)
        case let type? where [.singleChoice, .singleSelectDropdown].contains(type) && !field.choices.isEmpty:
            return ChoiceFieldEditor(context)
        case let type? where [.multipleChoice, .multipleSelectDropdown].contains(type) && !field.choices.isEmpty:
            return MultipleChoiceFieldEditor(context)
        default: break
        }
        switch field.kind {
        case .boolean: return BooleanFieldEditor(context)
        case .longText: return LongTextFieldEditor(context)
        case .date: return DateFieldEditor(context, precision: .minute)
        case .day: return DateFieldEditor(context, precision: .day)
        case .relation, .relations: return RelationFieldEditor(context)
        case .localized: return LocalizedTextFieldEditor(context)
        case .list, .object: return StructuredFieldEditor(context)
        case .text, .number, .time, .link, .image: return EntryFieldEditor(context)
        }
    }
}
