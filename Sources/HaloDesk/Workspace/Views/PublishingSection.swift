import CGtk
import Foundation
import HaloServices

/// The instance editor's Publishing and Segmentation Tags groups (`instance-editor.ui`): the
/// state, Publish / Unpublish / Archive, the publish and expiry dates (`DateInput`, in the
/// user's time zone), and the tags as `name = value` rows with a row that adds one.
///
/// It edits a `Publication` (which says which field each button writes). Every change calls
/// `onChange` (the editor marks itself dirty); nothing is sent until the instance is saved.
@MainActor
final class PublishingSection {
    let stateRow: ActionRow
    let publishButton: Button
    let unpublishButton: Button
    let archiveButton: Button
    let publishDate: DateInput
    let expiryDate: DateInput
    /// Sets the expiry date back to none (shown while there is one).
    let clearExpiryButton: Button
    /// Where a tag is typed as `name = value`; Enter or the Add button at its end adds it.
    let tagEntry: EntryRow
    /// Adds the tag typed.
    let addTagButton: Button
    /// The rows of the tags, in order, with their remove buttons.
    private(set) var tagRows: [(row: ActionRow, remove: Button)] = []
    private let tagsList: ListBox
    private let publishingProblem: Label
    private let tagsProblem: Label
    /// The instance as stored (or blank, for a new one) and the publication being edited.
    private var stored: ContentInstance?
    private(set) var publication: Publication?
    /// A date whose time of day is typed wrong, by field (`Publication.publishDateField`…):
    /// Save refuses the edit with it until it is corrected.
    private var dateProblems: [String: String] = [:]
    var onChange: (@MainActor () -> Void)?
    /// The clock Publish and Archive read (tests may fix it).
    var now: @MainActor () -> Date = { Date() }

    init(builder: Builder) throws {
        stateRow = try builder.object("state_row")
        let publishDateRow: ActionRow = try builder.object("publish_date_row")
        let expiryRow: ActionRow = try builder.object("expiry_date_row")
        publishButton = try builder.object("publish_button")
        unpublishButton = try builder.object("unpublish_button")
        archiveButton = try builder.object("archive_button")
        publishingProblem = try builder.object("publishing_problem")
        tagsList = try builder.object("tags_list")
        tagEntry = try builder.object("tag_entry_row")
        tagsProblem = try builder.object("tags_problem")
        publishDate = DateInput(purpose: "Publish date", milliseconds: nil, emptyLabel: "Now") { _, _ in }
        expiryDate = DateInput(purpose: "Expiry date", milliseconds: nil, emptyLabel: "Never") { _, _ in }
        clearExpiryButton = Button(iconName: "edit-clear-symbolic", accessibleLabel: "Remove the expiry date", tooltip: "Never expire")
        for (row, input) in [(publishDateRow, publishDate), (expiryRow, expiryDate)] {
            input.widget.centerVertically()
            row.addSuffix(input.widget)
        }
        clearExpiryButton.centerVertically()
        expiryRow.addSuffix(clearExpiryButton)
        addTagButton = tagEntry.addButton(accessibleLabel: "Add the tag", tooltip: "Add this tag")
        publishDate.onChange = weakly(self) { section, milliseconds, problem in
            section.datePicked(milliseconds, problem: problem, field: Publication.publishDateField) { $0.choosePublishDate($1) }
        }
        expiryDate.onChange = weakly(self) { section, milliseconds, problem in
            section.datePicked(milliseconds, problem: problem, field: Publication.expiryDateField) { $0.setExpiry($1) }
        }
        publishButton.onClicked(weakly(self) { section in section.edit { $0.publish(now: section.now()) } })
        unpublishButton.onClicked(weakly(self) { section in section.edit { $0.unpublish() } })
        archiveButton.onClicked(weakly(self) { section in section.edit { $0.archive(now: section.now()) } })
        clearExpiryButton.onClicked(weakly(self) { section in section.edit { $0.setExpiry(nil) } })
        tagEntry.onAdd(addTagButton, weakly(self) { $0.addTypedTag() })
        tagEntry.onChanged(weakly(self) { section in if !section.tagEntry.asEditable.text.isEmpty { section.onChange?() } })
    }

    /// Shows the publication of `instance` as stored (a blank one for a new instance).
    func show(_ instance: ContentInstance) {
        stored = instance
        publication = Publication(instance)
        dateProblems = [:]
        tagEntry.asEditable.text = ""
        clearProblems()
        refresh(dates: true)
    }

    func clear() {
        stored = nil
        publication = nil
        dateProblems = [:]
        tagEntry.asEditable.text = ""
        clearProblems()
        showTags([])
    }

    /// `instance` with the edited dates and tags (and a tag still typed in the add row, when it
    /// reads as one); throws what is wrong, naming the field `showProblem` shows it under.
    func applied(to instance: ContentInstance) throws(FieldValueError) -> ContentInstance {
        guard var publication else { return instance }
        for field in [Publication.publishDateField, Publication.expiryDateField] {
            if let problem = dateProblems[field] { throw FieldValueError("\(Self.label(of: field)): \(problem)", field: field) }
        }
        let typed = tagEntry.asEditable.text
        if !typed.trimmingCharacters(in: .whitespaces).isEmpty { try publication.addTag(typed: typed) }
        return publication.applied(to: instance)
    }

    /// Shows `problem` under the group it is about and moves the keyboard there; false when it
    /// is about neither group.
    func showProblem(_ problem: FieldValueError) -> Bool {
        switch problem.field {
        case Publication.publishDateField?, Publication.expiryDateField?:
            publishingProblem.show(problem.description)
            (problem.field == Publication.publishDateField ? publishDate : expiryDate).button.grabFocus()
        case Publication.tagsField?:
            tagsProblem.show(problem.description)
            tagEntry.grabFocus()
        default:
            return false
        }
        return true
    }

    /// What is shown under the publishing group and under the tags, nil where nothing is (tests).
    var problemTexts: (publishing: String?, tags: String?) {
        (publishingProblem.isVisible ? publishingProblem.text : nil, tagsProblem.isVisible ? tagsProblem.text : nil)
    }

    func clearProblems() {
        publishingProblem.show(nil)
        tagsProblem.show(nil)
    }

    // MARK: Editing

    private func edit(_ change: (inout Publication) -> Void) {
        guard var publication else { return }
        change(&publication)
        self.publication = publication
        refresh(dates: true)
        onChange?()
    }

    /// A date picked in a popover (or its time typed wrong: the problem is shown at once, and
    /// Save refuses it until it is corrected).
    private func datePicked(
        _ milliseconds: Double?, problem: String?, field: String, write: (inout Publication, Date) -> Void
    ) {
        dateProblems[field] = problem
        if let problem {
            publishingProblem.show("\(Self.label(of: field)): \(problem)")
        } else if dateProblems.isEmpty {
            publishingProblem.show(nil)
        }
        guard let milliseconds, var publication else {
            onChange?()
            return
        }
        write(&publication, HaloTimestamp.date(fromMilliseconds: milliseconds))
        self.publication = publication
        refresh(dates: false)  // the input shows what was picked; refilling it would fight the typing
        onChange?()
    }

    private func addTypedTag() {
        guard var publication else { return }
        do throws(FieldValueError) {
            try publication.addTag(typed: tagEntry.asEditable.text)
        } catch {
            tagsProblem.show(error.description)
            return
        }
        tagsProblem.show(nil)
        self.publication = publication
        tagEntry.asEditable.text = ""
        refresh(dates: false)
        onChange?()
    }

    private func removeTag(at index: Int) {
        edit { $0.removeTag(at: index) }
        // The row that had the keyboard is gone: the next one (or the add row) takes it.
        if index < tagRows.count { tagRows[index].remove.grabFocus() } else { tagEntry.grabFocus() }
    }

    // MARK: Showing

    /// Shows the state, the buttons that apply to it and the tags; with `dates`, refills the two
    /// date inputs too (after a button changed a date).
    private func refresh(dates: Bool) {
        guard let stored, let publication else { return }
        let now = now()
        let state = publication.state(of: stored, now: now)
        stateRow.title = state.label
        let changed = publication.applied(to: stored) != stored
        stateRow.subtitle = Self.explanation(state, publication) + (changed ? " · not saved yet" : "")
        stateRow.setAccessibleDescription(stateRow.subtitle)
        publishButton.isSensitive = state != .published
        publishButton.tooltip = publication.chosenPublishDate.map { "Publish on \(DisplayFormat.minute($0))" } ?? "Publish now"
        unpublishButton.isSensitive = publication.publishedAt != nil
        archiveButton.isSensitive = state != .archived
        clearExpiryButton.isVisible = publication.removedAt != nil
        if dates {
            publishDate.show(publication.publishedAt.map { Double(HaloTimestamp.milliseconds(from: $0)) })
            expiryDate.show(publication.removedAt.map { Double(HaloTimestamp.milliseconds(from: $0)) })
        }
        if publication.tags != shownTags { showTags(publication.tags) }
    }

    /// The tags the rows show (rows are rebuilt only when these change: a rebuilt row loses the keyboard).
    private var shownTags: [Tag] = []

    private func showTags(_ tags: [Tag]) {
        shownTags = tags
        tagRows.forEach { tagsList.remove($0.row) }
        tagRows = tags.enumerated().map { index, tag in
            let text = Publication.text(of: tag)
            let row = ActionRow(title: text)
            let remove = Button(iconName: "user-trash-symbolic", accessibleLabel: "Remove tag \(text)", tooltip: "Remove this tag")
            remove.centerVertically()
            remove.onClicked(weakly(self) { $0.removeTag(at: index) })
            row.addSuffix(remove)
            tagsList.insert(row, at: index)
            return (row, remove)
        }
    }

    private static func explanation(_ state: InstanceState, _ publication: Publication) -> String {
        func on(_ date: Date?) -> String { date.map { " on \(DisplayFormat.minute($0))" } ?? "" }
        switch state {
        case .draft: return "Not published"
        case .scheduled: return "Publishes" + on(publication.publishedAt)
        case .published:
            let expiry = publication.removedAt.map { ", expires on \(DisplayFormat.minute($0))" } ?? ""
            return "Published" + on(publication.publishedAt) + expiry
        case .archived: return "Archived" + on(publication.archivedAt)
        case .expired: return "Expired" + on(publication.removedAt)
        case .deleted: return "Deleted"
        }
    }

    private static func label(of field: String) -> String {
        field == Publication.publishDateField ? "Publish date" : "Expiry date"
    }
}
