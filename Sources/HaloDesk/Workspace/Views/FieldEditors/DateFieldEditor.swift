import HaloServices

/// A date and time (a calendar and the time of day, in the user's time zone) or, for a
/// date-only field, a day (stored as 00:00 UTC of that day); with a button that clears it.
@MainActor
final class DateFieldEditor: FieldEditorState, FieldEditor {
    let input: DateInput
    let clearButton: Button
    let widget: Widget
    var focusTarget: Widget { input.button }
    /// What is wrong with the time typed, if anything (refused at Save).
    private var problem: String?

    init(_ context: FieldEditorContext, precision: DateInput.Precision) {
        let field = context.field
        input = DateInput(purpose: field.name, milliseconds: context.stored?.doubleValue, precision: precision) { _, _ in }
        (widget, clearButton) = FieldEditors.clearable(input.button, field: field.name, tooltip: "No date")
        super.init(context: context)
        clearButton.isSensitive = input.milliseconds != nil
        input.onChange = weakly(self) { editor, milliseconds, problem in editor.picked(milliseconds, problem) }
        clearButton.onClicked(
            weakly(self) { editor in
                editor.input.show(nil); editor.picked(nil, nil)
            })
    }

    func value() throws(FieldValueError) -> JSONValue? {
        if let problem { throw context.error("“\(field.name)”: \(problem)") }
        return input.milliseconds.map(JSONValue.number)
    }

    private func picked(_ milliseconds: Double?, _ problem: String?) {
        self.problem = problem
        clearButton.isSensitive = milliseconds != nil
        context.problem(problem.map { "“\(field.name)”: \($0)" })
        userChanged()
    }
}
