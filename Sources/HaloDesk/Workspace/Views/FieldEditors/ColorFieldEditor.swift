import CGtk
import Foundation
import HaloServices

/// A color: a swatch button (GTK's color chooser) and the hex code, each following the other.
@MainActor
final class ColorFieldEditor: FieldEditorState, FieldEditor {
    let swatch: ColorButton
    let hexEntry: Editable
    let widget: Widget
    var focusTarget: Widget { hexEntry }
    /// Set while the entry is filled from the swatch: that change is not typing.
    private var isSyncing = false

    init(_ context: FieldEditorContext) {
        let field = context.field
        swatch = ColorButton(accessibleLabel: "\(field.name): pick a color")
        swatch.tooltip = "Pick a color"
        hexEntry = Editable.entry(accessibleLabel: "\(field.name): hex code", placeholder: "#1a73e8")
        gtk_editable_set_width_chars(halo_editable(hexEntry.raw), 10)
        let stored = context.stored?.stringValue ?? ""
        hexEntry.text = stored
        let row = Box(vertical: false, spacing: 6)
        row.append(swatch)
        row.append(hexEntry)
        widget = row
        super.init(context: context)
        showSwatch(stored)
        swatch.onColorSet(weakly(self) { $0.picked() })
        hexEntry.onChanged(weakly(self) { $0.typed() })
    }

    func value() throws(FieldValueError) -> JSONValue? {
        let text = hexEntry.text.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return nil }
        guard HexColor.isValid(text) else {
            throw context.error(
                "“\(field.name)” must be a color written as # and 3, 6 or 8 hex digits, like #1a73e8; “\(text)” is not one.")
        }
        return .string(text)
    }

    private func picked() {
        isSyncing = true
        hexEntry.text = swatch.hex
        isSyncing = false
        hexEntry.removeCSSClass("error")
        context.problem(nil)
        userChanged()
    }

    private func typed() {
        guard !isSyncing else { return }
        userChanged()
        do throws(FieldValueError) {
            _ = try value()
            hexEntry.removeCSSClass("error")
            context.problem(nil)
            showSwatch(hexEntry.text)
        } catch {
            hexEntry.addCSSClass("error")
            context.problem(error.description)
        }
    }

    /// The swatch shows a valid code (GDK reads #rgb and #rrggbb; a code without # is given one).
    private func showSwatch(_ code: String) {
        let trimmed = code.trimmingCharacters(in: .whitespaces)
        guard HexColor.isValid(trimmed) else { return }
        swatch.hex = trimmed.hasPrefix("#") ? trimmed : "#" + trimmed
    }
}
