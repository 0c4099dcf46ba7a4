import CAdw
import CGtk
import Foundation
import HaloServices

/// The detail pane for one instance: metadata (id, who created and updated it when), the name,
/// publishing and segmentation tags (`PublishingSection`) and one editor per field, chosen by
/// its type (`FieldEditors`). Each editor checks its value as it is edited and when the edit
/// is collected; only the fields the user changed are written back.
@MainActor
final class InstanceEditor {
    let widget: Widget
    /// Metadata and the name come from `instance-editor.ui`; the per-field rows are built here
    /// into `fieldsBox` (their number and kinds depend on the module).
    private let metadataLabel: Label
    private let fieldsBox: Box
    let nameEntry: Editable
    /// State, Publish / Unpublish / Archive, publish and expiry dates, tags.
    let publishing: PublishingSection
    private(set) var editors: [(field: FieldDescriptor, editor: any FieldEditor)] = []
    /// Under each field, what is wrong with its value (hidden while nothing is).
    private var problemLabels: [String: Label] = [:]
    /// Finds instances by name for the relation pickers (the workspace sets it).
    var instanceSearch: InstanceSearch = { _ in [] }
    private let imageLoader: ImageLoader
    /// The instance as loaded (or the blank one being created).
    private(set) var instance: ContentInstance?
    private(set) var isNew = false
    private(set) var isDirty = false
    private var isPopulating = false
    var onDirtyChanged: (@MainActor (Bool) -> Void)?
    /// The user clicked a relation: open the related instance.
    var onOpenRelation: (@MainActor (String) -> Void)?
    /// Opens a link field's address (its Open or Play button).
    var onOpenLink: (@MainActor (String) -> Void)?
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
        discardImagePreviews()
        fieldsBox.removeAll()
        editors = []
        problemLabels = [:]

        headerTitle = isNew ? "New Instance" : (instance.name.isEmpty ? "Untitled" : instance.name)
        headerSubtitle = isNew ? "Not saved yet" : InstanceState(instance: instance).label
        metadataLabel.text = metadataText(instance, isNew: isNew)
        nameEntry.text = instance.name
        publishing.show(instance)

        for field in fields {
            fieldsBox.append(heading("\(field.name) · \(field.caption)"))
            let problem = Label("", classes: ["error", "caption"], wrap: true)
            problem.isVisible = false
            problemLabels[field.name] = problem
            let context = FieldEditorContext(
                field: field, stored: instance.values[field.name], search: instanceSearch,
                openInstance: { [weak self] id in self?.onOpenRelation?(id) },
                openLink: { [weak self] link in self?.onOpenLink?(link) }, imageLoader: imageLoader,
                changed: { [weak self] in self?.markDirty() },
                problem: { [weak problem] text in
                    problem?.text = text ?? ""
                    problem?.isVisible = text != nil
                })
            let editor = FieldEditors.make(context)
            fieldsBox.append(editor.widget)
            fieldsBox.append(problem)
            editors.append((field, editor))
        }
        onHeaderChanged?()
    }

    /// The edited instance, validated: a name is required and each value must fit its field kind.
    func editedInstance() throws(FieldValueError) -> ContentInstance {
        guard var edited = instance else { throw FieldValueError("No instance is open.") }
        let name = nameEntry.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw FieldValueError("An instance needs a name.") }
        edited.name = name
        for (field, editor) in editors where editor.isEdited {
            if let value = try editor.value() {
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
        _ = fieldEditor(named: field)?.focusTarget.grabFocus()
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

    /// The editor of the field named `name` (tests and keyboard focus).
    func fieldEditor(named name: String) -> (any FieldEditor)? { editors.first { $0.field.name == name }?.editor }

    /// The editor of the field named `name` if it is of type `Editor` (tests).
    func fieldEditor<Editor: FieldEditor>(named name: String, as type: Editor.Type) -> Editor? {
        fieldEditor(named: name) as? Editor
    }

    /// Related-instance buttons by instance id (labels become names once resolved).
    var relationButtons: [String: [Button]] {
        var buttons: [String: [Button]] = [:]
        for case let editor as RelationFieldEditor in editors.map(\.editor) {
            for chip in editor.chips.chips { if let button = chip.nameButton { buttons[chip.value, default: []].append(button) } }
        }
        return buttons
    }

    /// The thumbnail under each image field's entry, by field name.
    var imagePreviews: [String: ImagePreview] {
        Dictionary(
            editors.compactMap { item in (item.editor as? EntryFieldEditor)?.imagePreview.map { (item.field.name, $0) } },
            uniquingKeysWith: { first, _ in first })
    }

    /// What each image field's caption says (the image or its Cloudinary thumbnail address).
    var imageCaptions: [String: String] { imagePreviews.compactMapValues { $0.captionText.isEmpty ? nil : $0.captionText } }

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
        discardImagePreviews()
        editors = []
        onHeaderChanged?()
    }

    /// Shows the related instances' names in place of their ids.
    func showRelationNames(_ names: [String: String]) {
        for case let editor as RelationFieldEditor in editors.map(\.editor) { editor.name(names) }
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

    /// Stops the previews of the instance being left: their late downloads must not show anywhere.
    private func discardImagePreviews() {
        imagePreviews.values.forEach { $0.cancel() }
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

extension FieldDescriptor {
    /// Shown next to the field name so the expected input is clear.
    var caption: String {
        switch type {
        case .color?: return "color"
        case .singleChoice?, .singleSelectDropdown?: return choices.isEmpty ? "text" : "one choice"
        case .multipleChoice?, .multipleSelectDropdown?: return choices.isEmpty ? "list" : "choices"
        case .youtube?: return "YouTube link"
        case .video?: return "video link"
        case .audio?: return "audio link"
        default: break
        }
        switch kind {
        case .text: return "text"
        case .longText: return "long text"
        case .number: return "number"
        case .boolean: return "yes/no"
        case .date: return "date and time"
        case .day: return "date"
        case .time: return "time of day"
        case .link: return "link"
        case .image: return "image"
        case .relation: return "related instance"
        case .relations: return "related instances"
        case .list: return "list"
        case .object: return "object"
        case .localized: return "text per language"
        }
    }
}

extension FieldKind {
    var placeholder: String? {
        switch self {
        case .number: return "A number, e.g. 12.5"
        case .time: return "HH:mm, e.g. 19:30"
        case .image, .link: return "https://…"
        default: return nil
        }
    }
}
