import CAdw
import CGtk
import HaloServices

/// An object or a list, in the structured editor (a tree of typed rows, or JSON text), with its
/// own undo and redo.
@MainActor
final class StructuredFieldEditor: FieldEditorState, FieldEditor {
    private(set) var editor: StructuredValueEditor!
    let undoButton: Button
    let redoButton: Button
    let widget: Widget
    var focusTarget: Widget { editor.widget }
    private var history: EditHistory<JSONDraft>

    init(_ context: FieldEditorContext) {
        let rootType: JSONType = context.field.kind == .list ? .array : .object
        let empty: JSONValue = rootType == .array ? .array([]) : .object([:])
        history = EditHistory(JSONDraft(context.stored ?? empty, fixedRootType: rootType))
        undoButton = Button(iconName: "edit-undo-symbolic", accessibleLabel: "Undo in \(context.field.name)", tooltip: "Undo")
        redoButton = Button(iconName: "edit-redo-symbolic", accessibleLabel: "Redo in \(context.field.name)", tooltip: "Redo")
        let column = Box(vertical: true, spacing: 6)
        widget = column
        super.init(context: context)
        editor = StructuredValueEditor(
            rootName: context.field.name, read: { [weak self] in self?.history.current ?? JSONDraft(empty) },
            edit: { [weak self] typing, change in self?.history.edit(typing: typing) { change(&$0) } })
        editor.onChanged = weakly(self) { $0.edited() }
        let undoRow = Box(vertical: false)
        undoRow.addCSSClass("linked")
        undoRow.append(undoButton)
        undoRow.append(redoButton)
        gtk_widget_set_halign(undoRow.widget, GTK_ALIGN_END)
        column.append(editor.widget)
        column.append(undoRow)
        undoButton.onClicked(
            weakly(self) { editor in
                editor.history.undo(); editor.afterHistoryStep()
            })
        redoButton.onClicked(
            weakly(self) { editor in
                editor.history.redo(); editor.afterHistoryStep()
            })
        showHistory()
    }

    func value() throws(FieldValueError) -> JSONValue? {
        if let problem = editor.textProblem {
            throw context.error("“\(field.name)” is not JSON yet: \(problem)")
        }
        do throws(JSONDraftProblem) {
            return try history.current.value()
        } catch {
            throw context.error("“\(field.name)”: \(error.description)")
        }
    }

    private func edited() {
        showHistory()
        context.problem(editor.textProblem.map { "“\(field.name)” is not JSON yet: \($0)" } ?? history.current.problems.first?.description)
        userChanged()
    }

    private func afterHistoryStep() {
        editor.render()
        edited()
    }

    private func showHistory() {
        undoButton.isSensitive = history.canUndo
        redoButton.isSensitive = history.canRedo
    }
}
