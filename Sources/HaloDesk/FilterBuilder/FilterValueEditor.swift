import CGtk
import Foundation
import HaloServices

/// The value input of one condition, chosen by the field's kind and the operator: a number spin,
/// a date with a calendar popover, a switch for yes/no, the field's choices, an instance picker
/// for relations, chips for "is one of" / "is none of", else a text entry. Every change goes to
/// `onChange` as a typed value, or as the problem with what was typed (the model flags it at the
/// condition; nothing half-typed is sent).
@MainActor
final class FilterValueEditor {
    typealias Change = @MainActor (FilterValue, _ inputProblem: String?) -> Void

    let widget: Widget
    /// The control the keyboard goes to first (focus restore after a rebuild, tests).
    let focusTarget: Widget
    /// The concrete input, for tests that type or pick like a user.
    let input: Input

    @MainActor
    enum Input {
        case entry(Editable)
        case number(SpinButton)
        case date(DateInput)
        case toggle(Switch)
        case choice(OptionPicker)
        case instance(InstancePicker)
        case chips(ChipsInput)
        case readOnly(Editable)
    }

    /// nil when the condition takes no value (no field or operator yet, "is empty").
    init?(condition: FilterCondition, search: @escaping InstanceSearch, onChange: @escaping Change) {
        guard let field = condition.field, let operation = condition.operation, !operation.takesNoValue else { return nil }
        let purpose = "Value of \(field.label)"
        if case .wire(let value, _) = condition.value {
            // A value the builder does not type (an object, an unusual type hint): kept as it came.
            let entry = Editable.entry(accessibleLabel: purpose)
            entry.text = FieldValueText.json(value)
            gtk_editable_set_editable(halo_editable(entry.raw), 0)
            entry.tooltip = "This value is kept exactly as it was written; change it in the text form."
            input = .readOnly(entry)
            widget = entry
            focusTarget = entry
            return
        }
        if operation.takesList {
            let items: [FilterValue] = if case .list(let items) = condition.value { items } else { [] }
            let chips = ChipsInput(field: field, items: items, purpose: purpose, search: search, onChange: onChange)
            (input, widget, focusTarget) = (.chips(chips), chips.widget, chips.focusTarget)
            return
        }
        switch field.kind {
        case .boolean:
            let toggle = Switch(accessibleLabel: purpose)
            toggle.isOn = condition.value == .bool(true)
            toggle.onToggled { [weak toggle] in if let toggle { onChange(.bool(toggle.isOn), nil) } }
            (input, widget, focusTarget) = (.toggle(toggle), toggle, toggle)
        case .number:
            let spin = SpinButton.forNumbers(accessibleLabel: purpose, value: condition.value)
            spin.onTextChanged { [weak spin] in
                guard let spin else { return }
                do throws(FieldValueError) {
                    onChange(try FilterValueEditor.value(typed: spin.text, for: field) ?? .none, nil)
                } catch {
                    onChange(.none, error.description)
                }
            }
            (input, widget, focusTarget) = (.number(spin), spin, spin)
        case .date, .day:
            let shown: Double? = if case .date(let milliseconds) = condition.value { milliseconds } else { nil }
            let date = DateInput(purpose: purpose, milliseconds: shown) { milliseconds, problem in
                onChange(milliseconds.map(FilterValue.date) ?? .none, problem)
            }
            (input, widget, focusTarget) = (.date(date), date.widget, date.button)
        case .relation, .relations:
            let shown: String? = if case .text(let id) = condition.value { id } else { nil }
            let picker = InstancePicker(shown: shown, accessibleLabel: purpose, search: search) { choice in
                onChange(.text(choice.id), nil)
            }
            (input, widget, focusTarget) = (.instance(picker), picker.button, picker.button)
        case _ where !field.choices.isEmpty && operation != .contains:
            let shown: Int? = if case .text(let text) = condition.value { field.choices.firstIndex(of: text) } else { nil }
            let picker = OptionPicker(
                options: field.choices, selected: shown, placeholder: "Choose…", accessibleLabel: purpose
            ) { index in onChange(.text(field.choices[index]), nil) }
            (input, widget, focusTarget) = (.choice(picker), picker.button, picker.button)
        default:
            let entry = Editable.entry(
                accessibleLabel: purpose, placeholder: operation == .contains ? "At least 3 characters" : "A value")
            if case .text(let text) = condition.value { entry.text = text }
            entry.onChanged { [weak entry] in
                guard let entry else { return }
                onChange(entry.text.isEmpty ? .none : .text(entry.text), nil)
            }
            (input, widget, focusTarget) = (.entry(entry), entry, entry)
        }
        widget.expand(horizontally: true)
    }

    /// The typed value for text entered for `field` (nil for empty text), by the same rules as
    /// the instance editor.
    static func value(typed text: String, for field: FilterField) throws(FieldValueError) -> FilterValue? {
        let typed: Set<FieldKind> = [.number, .date, .day, .time]
        switch try FieldValueText.parse(text, kind: typed.contains(field.kind) ? field.kind : .text, field: field.label) {
        case nil: return nil
        case .number(let number)?: return field.kind == .date || field.kind == .day ? .date(number) : .number(number)
        case .string(let text)?: return .text(text)
        case let other?: return .wire(other, type: SearchFilter.inferredType(of: other))
        }
    }

    /// The text a typed value shows (as the instance editor shows stored values).
    static func text(of value: FilterValue, kind: FieldKind) -> String {
        if case .list = value { return "" }
        return FieldValueText.display(value.wire.value, kind: kind)
    }
}

extension SpinButton {
    /// A spin button for any number: its text is the value as the app writes numbers (12.5, not
    /// 12.50), and empty while no value is set (an untouched spin sends nothing).
    static func forNumbers(accessibleLabel: String, value: FilterValue) -> SpinButton {
        let spin = SpinButton(sinking: UnsafeMutableRawPointer(gtk_spin_button_new_with_range(-1e15, 1e15, 1)))
        gtk_spin_button_set_digits(OpaquePointer(spin.raw), 6)
        // A re-read of text that is not a number keeps the value as it was (the default policy
        // clamps it to the lowest value).
        gtk_spin_button_set_update_policy(OpaquePointer(spin.raw), GTK_UPDATE_IF_VALID)
        spin.setAccessibleLabel(accessibleLabel)
        if case .number(let number) = value { spin.value = number }
        spin.onReturningBool("output") { [weak spin] in
            guard let spin else { return false }
            // Keep an empty text empty: GTK re-formats on focus-out, and "0" would be a value
            // the user never gave.
            if spin.text.isEmpty, spin.value == 0 { return true }
            spin.text = FilterValueEditor.text(of: .number(spin.value), kind: .number)
            return true
        }
        spin.text = FilterValueEditor.text(of: value, kind: .number)
        gtk_editable_set_width_chars(halo_editable(spin.raw), 10)
        return spin
    }

    var text: String {
        get { swiftString(gtk_editable_get_text(halo_editable(raw))) ?? "" }
        set { if newValue != text { gtk_editable_set_text(halo_editable(raw), newValue) } }
    }

    /// The text changed (typed, or re-formatted after the arrows).
    @discardableResult
    func onTextChanged(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("changed", handler) }
}

/// The values of "is one of" / "is none of": chips (each with a remove button) and a way
/// to add one suited to the field — the field's choices, an instance picker, or an entry (Enter adds).
@MainActor
final class ChipsInput {
    let widget: Widget
    /// The chips shown, one per value (each with its remove button).
    var chips: [ChipBox.Chip] { chipBox.chips }
    /// How values are added: typed into an entry, or picked.
    private(set) var entry: Editable?
    private(set) var choicePicker: OptionPicker?
    private(set) var instancePicker: InstancePicker?
    private var items: [FilterValue]
    private let field: FilterField
    private var chipBox: ChipBox!
    private let onChange: FilterValueEditor.Change

    var focusTarget: Widget { choicePicker?.button ?? instancePicker?.button ?? entry ?? widget }

    init(
        field: FilterField, items: [FilterValue], purpose: String, search: @escaping InstanceSearch,
        onChange: @escaping FilterValueEditor.Change
    ) {
        self.field = field
        self.items = items
        self.onChange = onChange
        let column = Box(vertical: true, spacing: 6)
        widget = column
        chipBox = ChipBox(accessibleLabel: "\(purpose): chosen values") { [weak self] text in self?.remove(text) }
        column.append(chipBox.widget)
        if !field.choices.isEmpty {
            let picker = OptionPicker(options: field.choices, selected: nil, placeholder: "Add…", accessibleLabel: "Add a value") {
                [weak self] index in
                guard let self else { return }
                self.add(.text(self.field.choices[index]))
            }
            choicePicker = picker
            column.append(picker.button)
        } else if field.kind == .relation || field.kind == .relations {
            let picker = InstancePicker(shown: nil, placeholder: "Add an instance…", accessibleLabel: "Add an instance", search: search) {
                [weak self] choice in self?.add(.text(choice.id), label: choice.name)
            }
            instancePicker = picker
            column.append(picker.button)
        } else {
            let input = Editable.entry(accessibleLabel: "Add a value to \(field.label)", placeholder: "Type a value, then Enter")
            input.on("activate", weakly(self) { $0.addTyped() })
            entry = input
            column.append(input)
        }
        showChips()
    }

    /// Adds what the entry holds, as Enter does.
    func addTyped() {
        guard let entry else { return }
        do throws(FieldValueError) {
            guard let value = try FilterValueEditor.value(typed: entry.text, for: field) else { return }
            entry.text = ""
            add(value)
        } catch {
            onChange(.list(items), error.description)
        }
    }

    private func add(_ value: FilterValue, label: String? = nil) {
        guard !items.contains(value) else { return }
        if case .text(let id) = value, let label { chipBox.name([id: label]) }
        items.append(value)
        showChips()
        onChange(.list(items), nil)
    }

    private func remove(_ text: String) {
        guard let index = items.firstIndex(where: { chipText($0) == text }) else { return }
        items.remove(at: index)
        showChips()
        onChange(.list(items), nil)
        focusTarget.grabFocus()
    }

    /// The chip's value: an instance's id (named once picked), else the value as the editor writes it.
    private func chipText(_ value: FilterValue) -> String {
        if case .text(let text) = value { return text }
        return FilterValueEditor.text(of: value, kind: field.kind)
    }

    private func showChips() { chipBox.show(items.map(chipText)) }
}
