import CAdw
import CGtk
import Foundation
import HaloServices

/// The detail pane for one instance: metadata (id, who created and updated it when), the name,
/// publishing and segmentation tags (`PublishingSection`) and one editor per field, chosen by
/// field kind. Values are validated by kind when the edit is collected.
@MainActor
final class InstanceEditor {
    /// The input widget of one field.
    @MainActor
    enum FieldInput {
        case entry(Editable), toggle(Switch), text(TextView)

        var text: String {
            switch self {
            case .entry(let entry): return entry.text
            case .toggle(let toggle): return toggle.isOn ? "yes" : "no"
            case .text(let view): return view.text
            }
        }

        var widget: Widget {
            switch self {
            case .entry(let entry): return entry
            case .toggle(let toggle): return toggle
            case .text(let view): return view
            }
        }
    }

    let widget: Widget
    /// Metadata and the name come from `instance-editor.ui`; the per-field rows are built here
    /// into `fieldsBox` (their number and kinds depend on the module).
    private let metadataLabel: Label
    private let fieldsBox: Box
    let nameEntry: Editable
    /// State, Publish / Unpublish / Archive, publish and expiry dates, tags.
    let publishing: PublishingSection
    private(set) var inputs: [(field: FieldDescriptor, input: FieldInput)] = []
    /// Related-instance buttons by instance id (labels become names once resolved).
    private(set) var relationButtons: [String: [Button]] = [:]
    /// Under each field, what is wrong with its value (hidden while nothing is).
    private var problemLabels: [String: Label] = [:]
    /// The thumbnail under each image field's entry, by field name.
    private(set) var imagePreviews: [String: ImagePreview] = [:]
    /// What each image field's caption says (the image or its Cloudinary thumbnail address).
    var imageCaptions: [String: String] { imagePreviews.compactMapValues { $0.captionText.isEmpty ? nil : $0.captionText } }
    private let imageLoader: ImageLoader
    /// The instance as loaded (or the blank one being created).
    private(set) var instance: ContentInstance?
    private(set) var isNew = false
    private(set) var isDirty = false
    private var isPopulating = false
    var onDirtyChanged: (@MainActor (Bool) -> Void)?
    /// The user clicked a relation: open the related instance.
    var onOpenRelation: (@MainActor (String) -> Void)?
    /// The title and subtitle for the detail pane's header bar changed (an instance was shown or cleared).
    var onHeaderChanged: (@MainActor () -> Void)?

    /// The header bar title: the instance's name ("New Instance" while creating one).
    private(set) var headerTitle = ""
    /// The header bar subtitle: the publication state ("Not saved yet" while creating).
    private(set) var headerSubtitle = ""

    /// Loads `Resources/ui/instance-editor.ui`; image thumbnails download through `imageLoader`.
    init(imageLoader: ImageLoader = .shared) throws {
        self.imageLoader = imageLoader
        let builder = try Builder(ui: "instance-editor")
        widget = try builder.object("instance_editor")
        metadataLabel = try builder.object("metadata_label")
        fieldsBox = try builder.object("fields_box")
        nameEntry = try builder.object("name_entry")
        publishing = try PublishingSection(builder: builder)
        nameEntry.onChanged(weakly(self) { $0.markDirty() })
        publishing.onChange = weakly(self) { $0.markDirty() }
    }

    /// Shows `instance` with the given fields; `isNew` for an instance not yet on the server.
    func show(_ instance: ContentInstance, fields: [FieldDescriptor], isNew: Bool) {
        isPopulating = true
        defer { isPopulating = false }
        self.instance = instance
        self.isNew = isNew
        setDirty(isNew)
        fieldsBox.removeAll()
        inputs = []
        relationButtons = [:]
        problemLabels = [:]
        discardImagePreviews()

        headerTitle = isNew ? "New Instance" : (instance.name.isEmpty ? "Untitled" : instance.name)
        headerSubtitle = isNew ? "Not saved yet" : InstanceState(instance: instance).label
        metadataLabel.text = metadataText(instance, isNew: isNew)
        nameEntry.text = instance.name
        publishing.show(instance)

        for field in fields {
            fieldsBox.append(heading("\(field.name) · \(field.kind.caption)"))
            let value = instance.values[field.name]
            let input = makeInput(for: field, value: value)
            fieldsBox.append(input.widget)
            let problem = Label("", classes: ["error", "caption"], wrap: true)
            problem.isVisible = false
            fieldsBox.append(problem)
            problemLabels[field.name] = problem
            inputs.append((field, input))
            extras(for: field, value: value, input: input).forEach(fieldsBox.append)
        }
        onHeaderChanged?()
    }

    /// The edited instance, validated: a name is required and each value must fit its field kind.
    func editedInstance() throws(FieldValueError) -> ContentInstance {
        guard var edited = instance else { throw FieldValueError("No instance is open.") }
        let name = nameEntry.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw FieldValueError("An instance needs a name.") }
        edited.name = name
        for (field, input) in inputs {
            // A field left as shown keeps its stored value: the text may be lossy (dates to the minute).
            if input.text == FieldValueText.display(edited.values[field.name], kind: field.kind) { continue }
            if let value = try FieldValueText.parse(input.text, kind: field.kind, field: field.name) {
                edited.values[field.name] = value
            } else {
                edited.values.removeValue(forKey: field.name)
            }
        }
        return try publishing.applied(to: edited)
    }

    /// Shows `problem` under its field and moves the keyboard there; false when it names no
    /// field on screen (the caller says it elsewhere).
    @discardableResult
    func showProblem(_ problem: FieldValueError) -> Bool {
        clearProblems()
        if publishing.showProblem(problem) { return true }
        guard let field = problem.field, let label = problemLabels[field] else { return false }
        label.text = problem.description
        label.isVisible = true
        input(named: field)?.widget.grabFocus()
        return true
    }

    /// What is shown under the field named `name`, nil when nothing is (tests).
    func problemText(field name: String) -> String? {
        problemLabels[name].flatMap { $0.isVisible ? $0.text : nil }
    }

    func clearProblems() {
        problemLabels.values.forEach { $0.isVisible = false }
        publishing.clearProblems()
    }

    /// The input for the field named `name` (tests and keyboard focus).
    func input(named name: String) -> FieldInput? { inputs.first { $0.field.name == name }?.input }

    /// Clears the pane (nothing selected).
    func clear() {
        isPopulating = true
        defer { isPopulating = false }
        instance = nil
        isNew = false
        setDirty(false)
        fieldsBox.removeAll()
        nameEntry.text = ""
        metadataLabel.text = ""
        publishing.clear()
        headerTitle = ""
        headerSubtitle = ""
        inputs = []
        relationButtons = [:]
        discardImagePreviews()
        onHeaderChanged?()
    }

    /// Relabels relation buttons with the related instances' names.
    func showRelationNames(_ names: [String: String]) {
        for (id, buttons) in relationButtons {
            guard let name = names[id] else { continue }
            buttons.forEach {
                $0.label = name; $0.setAccessibleLabel("Open related instance \(name)")
            }
        }
    }

    func markSaved(_ saved: ContentInstance, fields: [FieldDescriptor]) {
        show(saved, fields: fields, isNew: false)
    }

    private func markDirty() {
        guard !isPopulating else { return }
        setDirty(true)
    }

    private func setDirty(_ dirty: Bool) {
        guard dirty != isDirty else { return }
        isDirty = dirty
        onDirtyChanged?(dirty)
    }

    private func heading(_ text: String) -> Label {
        let label = Label(text, classes: ["heading"])
        gtk_widget_set_margin_top(label.widget, 10)
        return label
    }

    private func makeInput(for field: FieldDescriptor, value: JSONValue?) -> FieldInput {
        let shown =
            field.kind == .boolean
            ? "" : (field.kind.isStructured ? value.map(FieldValueText.json) ?? "" : FieldValueText.display(value, kind: field.kind))
        switch field.kind {
        case .boolean:
            let toggle = Switch(accessibleLabel: field.name)
            toggle.isOn = value?.boolValue ?? false
            toggle.onToggled(weakly(self) { $0.markDirty() })
            return .toggle(toggle)
        case .longText, .list, .object, .localized:
            let view = TextView(accessibleLabel: field.name, monospace: field.kind.isStructured)
            view.text = shown
            view.onChanged(weakly(self) { $0.markDirty() })
            return .text(view)
        default:
            let entry = Editable.entry(accessibleLabel: field.name, placeholder: field.kind.placeholder)
            entry.text = shown
            entry.onChanged(weakly(self) { $0.markDirty() })
            return .entry(entry)
        }
    }

    /// Stops the previews of the instance being left: their late downloads must not show anywhere.
    private func discardImagePreviews() {
        imagePreviews.values.forEach { $0.cancel() }
        imagePreviews = [:]
    }

    /// What a field shows besides its editor: a thumbnail for images, links for relations.
    private func extras(for field: FieldDescriptor, value: JSONValue?, input: FieldInput) -> [Widget] {
        switch field.kind {
        case .image:
            let preview = ImagePreview(fieldName: field.name, loader: imageLoader)
            preview.show(url: value?.stringValue ?? "")
            if case .entry(let entry) = input {
                // Weak: the entry's own signal closure must not keep the entry alive.
                entry.onChanged { [weak entry, weak preview] in
                    guard let entry, let preview else { return }
                    preview.showAfterEditing(url: entry.text)
                }
            }
            imagePreviews[field.name] = preview
            return [preview.widget]
        case .relation, .relations:
            let ids: [String]
            if let array = value?.arrayValue { ids = array.compactMap(\.stringValue) } else { ids = value?.stringValue.map { [$0] } ?? [] }
            guard !ids.isEmpty else { return [] }
            let row = Box(vertical: false, spacing: 6)
            for id in ids where FieldKind.isInstanceID(id) {
                let button = Button(label: id)
                button.addCSSClass("pill")
                button.addCSSClass("small-pill")
                button.setAccessibleLabel("Open related instance \(id)")
                button.tooltip = "Open the related instance"
                button.onClicked(weakly(self) { $0.onOpenRelation?(id) })
                relationButtons[id, default: []].append(button)
                row.append(button)
            }
            let scroller = ScrolledWindow(child: row, horizontalScrolling: true)
            gtk_scrolled_window_set_policy(OpaquePointer(scroller.raw), GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER)
            return [scroller]
        default:
            return []
        }
    }

    /// Who made the instance and when; its state, dates and tags are in the publishing section.
    private func metadataText(_ instance: ContentInstance, isNew: Bool) -> String {
        if isNew { return "Not saved yet" }
        var lines = ["id \(instance.id ?? "—")"]
        lines.append("Created \(FieldValueText.format(date: instance.createdAt))" + (instance.createdBy.map { " by \($0)" } ?? ""))
        if let updated = instance.updatedAt {
            lines.append("Updated \(FieldValueText.format(date: updated))" + (instance.updatedBy.map { " by \($0)" } ?? ""))
        }
        return lines.joined(separator: "\n")
    }
}

extension FieldKind {
    /// Shown next to the field name so the expected input is clear.
    var caption: String {
        switch self {
        case .text: return "text"
        case .longText: return "long text"
        case .number: return "number"
        case .boolean: return "yes/no"
        case .date: return "date"
        case .link: return "link"
        case .image: return "image"
        case .relation: return "related instance"
        case .relations: return "related instances"
        case .list: return "list (JSON)"
        case .object: return "object (JSON)"
        case .localized: return "text per language (JSON)"
        }
    }

    var placeholder: String? {
        switch self {
        case .number: return "A number, e.g. 12.5"
        case .date: return "yyyy-MM-dd HH:mm"
        case .relations: return "Instance ids, separated by commas"
        case .relation: return "Instance id"
        case .image, .link: return "https://…"
        default: return nil
        }
    }
}
