import CGtk
import Foundation
import HaloServices

/// One line of text: text, numbers, times of day, web addresses (with a button that opens them:
/// Play for video and audio, Open for web pages), images (with the thumbnail under the entry).
/// What is typed is checked as it is typed: the entry turns red and the field says what is
/// wrong, and Save refuses the same sentence.
@MainActor
final class EntryFieldEditor: FieldEditorState, FieldEditor {
    let entry: Editable
    let widget: Widget
    var focusTarget: Widget { entry }
    /// The thumbnail of an image field.
    private(set) var imagePreview: ImagePreview?
    /// Opens a link field's address (sensitive while it is a valid one).
    private(set) var openButton: Button?

    init(_ context: FieldEditorContext) {
        let field = context.field
        entry = Editable.entry(accessibleLabel: field.name, placeholder: field.kind.placeholder)
        entry.text = FieldValueText.display(context.stored, kind: field.kind)
        if field.kind == .time { gtk_editable_set_width_chars(halo_editable(entry.raw), 8) }
        if field.kind == .image {
            let preview = ImagePreview(fieldName: field.name, loader: context.imageLoader)
            preview.show(url: context.stored?.stringValue ?? "")
            let column = Box(vertical: true, spacing: 6)
            column.append(entry)
            column.append(preview.widget)
            widget = column
            imagePreview = preview
        } else if field.kind == .link {
            let plays = [.video, .audio, .youtube].contains(field.type)
            let button = Button(
                iconName: plays ? "media-playback-start-symbolic" : "web-browser-symbolic",
                accessibleLabel: "\(plays ? "Play" : "Open") \(field.name)",
                tooltip: plays ? "Play in your browser or media player" : "Open in your browser")
            button.centerVertically()
            entry.expand(horizontally: true)
            let row = Box(vertical: false, spacing: 6)
            row.append(entry)
            row.append(button)
            widget = row
            openButton = button
        } else {
            widget = entry
        }
        super.init(context: context)
        entry.onChanged(weakly(self) { $0.typed() })
        openButton?.onClicked(weakly(self) { editor in editor.context.openLink(editor.entry.text.trimmingCharacters(in: .whitespaces)) })
        showOpenable(try? value())
    }

    /// The Open / Play button works only for an address that passes the field's check.
    private func showOpenable(_ checked: JSONValue?) {
        openButton?.isSensitive = checked?.stringValue != nil
    }

    func value() throws(FieldValueError) -> JSONValue? {
        let value = try FieldValueText.parse(entry.text, kind: field.kind, field: field.name)
        if field.type == .youtube, let address = value?.stringValue, let host = URL(string: address)?.host?.lowercased(),
            !(host.hasSuffix("youtube.com") || host.hasSuffix("youtu.be"))
        {
            throw context.error("“\(field.name)” must be a YouTube address (youtube.com or youtu.be).")
        }
        return value
    }

    private func typed() {
        userChanged()
        imagePreview?.showAfterEditing(url: entry.text)
        do throws(FieldValueError) {
            showOpenable(try value())
            entry.removeCSSClass("error")
            context.problem(nil)
        } catch {
            showOpenable(nil)
            entry.addCSSClass("error")
            context.problem(error.description)
        }
    }
}

/// A yes/no switch.
@MainActor
final class BooleanFieldEditor: FieldEditorState, FieldEditor {
    let toggle: Switch
    var widget: Widget { toggle }
    var focusTarget: Widget { toggle }

    init(_ context: FieldEditorContext) {
        toggle = Switch(accessibleLabel: context.field.name)
        toggle.isOn = context.stored?.boolValue ?? false
        super.init(context: context)
        toggle.onToggled(weakly(self) { $0.userChanged() })
    }

    func value() throws(FieldValueError) -> JSONValue? { .bool(toggle.isOn) }
}

/// Long text: a multi-line editor and, for HTML, a preview of the text a reader sees.
@MainActor
final class LongTextFieldEditor: FieldEditorState, FieldEditor {
    let textView: TextView
    /// The reader's text of the HTML (hidden, with its heading, when the text has no markup).
    let preview: Label
    private let previewHeading: Label
    let widget: Widget
    var focusTarget: Widget { textView }

    init(_ context: FieldEditorContext) {
        textView = TextView(accessibleLabel: context.field.name)
        textView.text = context.stored?.stringValue ?? FieldValueText.display(context.stored, kind: .longText)
        preview = Label("", classes: ["dim-label", "html-preview"], wrap: true)
        preview.setAccessibleLabel("\(context.field.name): text preview")
        previewHeading = Label("Preview", classes: ["caption-heading", "dim-label"])
        let column = Box(vertical: true, spacing: 6)
        column.append(textView)
        column.append(previewHeading)
        column.append(preview)
        widget = column
        super.init(context: context)
        showPreview()
        textView.onChanged(
            weakly(self) { editor in
                editor.userChanged()
                editor.showPreview()
            })
    }

    func value() throws(FieldValueError) -> JSONValue? {
        textView.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : .string(textView.text)
    }

    private func showPreview() {
        let text = textView.text
        let hasMarkup = text.contains("<") && text.contains(">")
        // A long body's preview is its opening: enough to read that the markup is right.
        let plain = HTMLText.plainText(of: text)
        preview.text = plain.count > 600 ? String(plain.prefix(600)) + "…" : plain
        preview.isVisible = hasMarkup && !plain.isEmpty
        previewHeading.isVisible = preview.isVisible
    }
}
