import CGtk
import Foundation
import HaloServices

/// Text per language: one row per locale (its name, its code, the text, a remove button), a
/// way to add a locale, and what apps show for a language with no text.
@MainActor
final class LocalizedTextFieldEditor: FieldEditorState, FieldEditor {
    /// One locale on screen (tests type into it as a user would).
    struct LocaleRow {
        let code: String
        let row: Box
        let entry: Editable
        let removeButton: Button
    }

    let widget: Widget
    private let rowsBox: Box
    let addEntry: Editable
    let addButton: Button
    private(set) var rows: [LocaleRow] = []
    var focusTarget: Widget { rows.first?.entry ?? addEntry }

    init(_ context: FieldEditorContext) {
        let field = context.field
        rowsBox = Box(vertical: true, spacing: 6)
        addEntry = Editable.entry(accessibleLabel: "New locale for \(field.name)", placeholder: "Locale, e.g. fr-FR")
        gtk_editable_set_width_chars(halo_editable(addEntry.raw), 14)
        addButton = Button.iconAndLabel("list-add-symbolic", label: "Add Language")
        addButton.setAccessibleLabel("Add a language to \(field.name)")
        let addRow = Box(vertical: false, spacing: 6)
        addRow.append(addEntry)
        addRow.append(addButton)
        let column = Box(vertical: true, spacing: 6)
        column.append(rowsBox)
        column.append(addRow)
        let fallback = context.field.defaultValue?.stringValue ?? "translation not set"
        column.append(Label("Where a language has no text, apps show “\(fallback)”.", classes: ["dim-label", "caption"], wrap: true))
        widget = column
        super.init(context: context)
        // JSON objects have no order: the locales are listed by code.
        for (code, text) in (context.stored?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            appendRow(code: code, text: text.stringValue ?? text.jsonString())
        }
        addButton.onClicked(weakly(self) { $0.addTypedLocale() })
        addEntry.on("activate", weakly(self) { $0.addTypedLocale() })
    }

    /// The texts by locale, in the order shown.
    var texts: [(code: String, text: String)] { rows.map { ($0.code, $0.entry.text) } }

    func value() throws(FieldValueError) -> JSONValue? {
        rows.isEmpty
            ? nil : .object(Dictionary(rows.map { ($0.code, JSONValue.string($0.entry.text)) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Adds the locale typed in the add entry, as Add Language does; the field says why not
    /// when it is no locale or already there.
    func addTypedLocale() {
        let code = addEntry.text.trimmingCharacters(in: .whitespaces)
        guard !code.isEmpty else { _ = addEntry.grabFocus(); return }
        guard LocaleCode.isValid(code) else {
            addEntry.addCSSClass("error")
            context.problem("“\(code)” is not a locale: write a language code and a country, like fr-FR.")
            return
        }
        if let existing = rows.first(where: { $0.code.lowercased() == code.lowercased() }) {
            context.problem("\(LocaleNames.name(of: existing.code)) is already here.")
            _ = existing.entry.grabFocus()
            return
        }
        addEntry.removeCSSClass("error")
        addEntry.text = ""
        context.problem(nil)
        let row = appendRow(code: code, text: "")
        _ = row.entry.grabFocus()
        userChanged()
    }

    @discardableResult
    private func appendRow(code: String, text: String) -> LocaleRow {
        let name = LocaleNames.name(of: code)
        // The language's name over its text: the entry keeps the pane's width in a narrow pane.
        let row = Box(vertical: true, spacing: 2)
        let heading = Box(vertical: false, spacing: 6)
        heading.append(Label(name, classes: ["caption-heading"]))
        heading.append(Label(code, classes: ["dim-label", "caption"]))
        let line = Box(vertical: false, spacing: 6)
        let entry = Editable.entry(accessibleLabel: "\(field.name) in \(name)")
        entry.text = text
        entry.expand(horizontally: true)
        let remove = Button(iconName: "user-trash-symbolic", accessibleLabel: "Remove \(name)", tooltip: "Remove \(name)")
        remove.addCSSClass("flat")
        line.append(entry)
        line.append(remove)
        row.append(heading)
        row.append(line)
        rowsBox.append(row)
        let localeRow = LocaleRow(code: code, row: row, entry: entry, removeButton: remove)
        rows.append(localeRow)
        entry.onChanged(weakly(self) { $0.userChanged() })
        remove.onClicked(weakly(self) { $0.remove(code) })
        return localeRow
    }

    private func remove(_ code: String) {
        guard let index = rows.firstIndex(where: { $0.code == code }) else { return }
        gtk_box_remove(halo_box(rowsBox.raw), rows[index].row.widget)
        rows.remove(at: index)
        _ = (rows.indices.contains(index) ? rows[index].entry : rows.last?.entry ?? addEntry).grabFocus()
        userChanged()
    }
}
