import CAdw
import CGtk
import Foundation
import HaloServices

/// The pocket window (`Resources/ui/pocket-window.ui`, from the main menu): the signed-in user's
/// pocket. A meter shows the bytes the whole pocket takes of what the server allows (256 KiB unless
/// it announced otherwise); `data` is edited in the structured editor under a meter of the
/// characters the server counts (Save is disabled over either limit, with the reason; a pocket
/// stored when the server allowed more can still be saved smaller); `references` are named lists (an
/// entry that is an instance id shows the instance's name and module and opens it; entries are
/// added by picking an instance or typing; Clear List and Delete List are HALO's `[]` and `null`).
/// Review and Save lists each change, current → new, with Revert per change, then saves with the
/// revision it read (`If-Match`); when the pocket was saved elsewhere meanwhile, both versions
/// are shown and the user chooses. Offline, the pocket is the copy on this computer and a save
/// waits with the other pending edits (`AuthManager.savePocketOrQueue`); the window then shows
/// the waiting save over the copy, and while that save is in conflict it sends to Pending Edits.
@MainActor
final class PocketWindow {
    /// What the window needs from the workspace.
    struct Services {
        let auth: AuthManager
        let search: InstanceSearch
        /// Names and modules of instances by id (ids that are no instance are left out).
        let lookUp: @MainActor ([String]) async -> [String: InstanceChoice]
        let openInstance: @MainActor (String) -> Void
        /// Whether the workspace is offline now (the pocket shown is the copy on this computer).
        let isOffline: @MainActor () -> Bool
        /// A save reached the server or waits in the outbox (the workspace follows).
        let onSaved: @MainActor (PocketSaveOutcome) -> Void
    }

    /// The controls of one reference list on screen (tests drive them as a user would).
    struct ListControls {
        let row: ExpanderRow
        let addEntryRow: EntryRow
        let picker: InstancePicker
        let clear: Button
        let delete: Button
        /// Each entry's row and remove button, in list order.
        var entries: [(row: ActionRow, remove: Button)] = []
    }

    let window: Window
    let windowTitle: WindowTitle
    let saveButton: Button
    let undoButton: Button
    let redoButton: Button
    let backButton: Button
    let retryButton: Button
    let sizeMeter: Widget
    let sizeLabel: Label
    let pocketMeter: Widget
    let pocketSizeLabel: Label
    private let pocketDescription: Label
    private let dataDescription: Label
    let problemLabel: Label
    let offlineLabel: Label
    let newListRow: EntryRow
    let confirmButton: Button
    let keepMineButton: Button
    let takeTheirsButton: Button
    let theirsLabel: Label
    let mineLabel: Label
    private let stack: Stack
    private let statusPage: StatusPage
    private let dataBox: Box
    let referencesGroup: PreferencesGroup
    private let reviewGroup: PreferencesGroup
    let services: Services

    private(set) var history: EditHistory<PocketDraft>?
    var draft: PocketDraft? { history?.current }
    private(set) var editor: StructuredValueEditor?
    var listControls: [String: ListControls] = [:]
    /// The review's rows and their Revert buttons, by change.
    private(set) var reviewRows: [(change: PocketChange, row: ActionRow, revert: Button)] = []
    /// Instance names by id, as looked up for the reference lists.
    var instanceNames: [String: InstanceChoice] = [:]
    /// The pocket the server holds now, after a save was refused for being stale.
    private(set) var conflict: Pocket?
    /// The save of this pocket waiting in the outbox, shown over the pocket read.
    private(set) var pendingSave: OutboxPocketEntry?
    /// Finished reads and saves (tests wait on them).
    private(set) var completedLoads = 0
    private(set) var completedSaves = 0
    private var actions: GObjectRef?

    init(parent: Widget, services: Services) throws {
        let builder = try Builder(ui: "pocket-window")
        window = try builder.object("pocket_window")
        windowTitle = try builder.object("window_title")
        saveButton = try builder.object("save_button")
        undoButton = try builder.object("undo_button")
        redoButton = try builder.object("redo_button")
        backButton = try builder.object("back_button")
        retryButton = try builder.object("retry_button")
        sizeMeter = try builder.object("size_meter")
        sizeLabel = try builder.object("size_label")
        pocketMeter = try builder.object("pocket_meter")
        pocketSizeLabel = try builder.object("pocket_size_label")
        pocketDescription = try builder.object("pocket_description")
        dataDescription = try builder.object("data_description")
        problemLabel = try builder.object("problem_label")
        offlineLabel = try builder.object("offline_label")
        newListRow = try builder.object("new_list_row")
        confirmButton = try builder.object("confirm_button")
        keepMineButton = try builder.object("keep_mine_button")
        takeTheirsButton = try builder.object("take_theirs_button")
        theirsLabel = try builder.object("theirs_label")
        mineLabel = try builder.object("mine_label")
        stack = try builder.object("stack")
        statusPage = try builder.object("status_page")
        dataBox = try builder.object("data_box")
        referencesGroup = try builder.object("references_group")
        reviewGroup = try builder.object("review_group")
        self.services = services
        window.setTransient(for: parent)
        saveButton.setAccessibleLabel("Review the changes and save")
        showLimits(services.auth.pocketLimits)
        wire()
        load()
    }

    func present() { window.present() }

    /// Whether there are edits that were not saved (closing asks first).
    var hasChanges: Bool { draft.map { !$0.changes.isEmpty } ?? false }

    // MARK: Reading

    /// Reads the pocket (offline: the copy on this computer), with a save still waiting laid over it.
    func load() {
        showPage("loading")
        statusPage.title = "Reading the Pocket…"
        statusPage.details = ""
        retryButton.isVisible = false
        saveButton.isSensitive = false
        let auth = services.auth
        Task { @MainActor in
            defer { completedLoads += 1 }
            do throws(HaloError) {
                let (pocket, pending) = try await auth.getPocketWithPendingSave()
                show(pocket, pending: pending)
            } catch {
                statusPage.title = "The Pocket Could Not Be Read"
                statusPage.details = error.localizedDescription
                retryButton.isVisible = true
            }
        }
    }

    /// Starts editing `pocket` (read, or the one saved elsewhere that the user chose), which
    /// includes `pending`, a save waiting to be sent.
    func show(_ pocket: Pocket, pending: OutboxPocketEntry? = nil) {
        let limits = services.auth.pocketLimits
        showLimits(limits)
        history = EditHistory(PocketDraft(pocket, limits: limits))
        conflict = nil
        pendingSave = pending
        let editor = StructuredValueEditor(
            rootName: "data", read: { [weak self] in self?.draft?.data ?? JSONDraft(.object([:])) },
            edit: { [weak self] typing, change in self?.history?.edit(typing: typing) { change(&$0.data) } })
        editor.onChanged = weakly(self) { $0.refresh(rebuildLists: false) }
        dataBox.removeAll()
        dataBox.append(editor.widget)
        self.editor = editor
        showNotice()
        showPage("editor")
        refresh(rebuildLists: true)
        lookUpNames()
    }

    // MARK: Showing the draft

    /// Updates what depends on the draft: the meter, Save and its reason, undo, the lists.
    func refresh(rebuildLists: Bool) {
        guard let draft else { return }
        undoButton.isSensitive = history?.canUndo ?? false
        redoButton.isSensitive = history?.canRedo ?? false
        let length = draft.dataLength
        let limit = draft.limits.dataCharacters
        gtk_level_bar_set_value(OpaquePointer(sizeMeter.raw), Double(min(length ?? 0, limit)))
        Self.mark(sizeMeter, over: (length ?? 0) > limit)
        sizeLabel.text = length.map { "\(DisplayFormat.count($0)) of \(DisplayFormat.count(limit)) characters" } ?? "—"
        let bytes = draft.wholeBytes
        let byteLimit = draft.limits.wholePocketBytes
        gtk_level_bar_set_value(OpaquePointer(pocketMeter.raw), Double(min(bytes ?? 0, byteLimit)))
        Self.mark(pocketMeter, over: (bytes ?? 0) > byteLimit)
        pocketSizeLabel.text = bytes.map { "\(DisplayFormat.count($0)) of \(DisplayFormat.count(byteLimit)) bytes used" } ?? "—"
        let problem = editor?.textProblem.map { "The text is not JSON yet: \($0)" } ?? draft.saveProblem
        problemLabel.show(problem)
        let changes = draft.changes.count
        let blocked = waitsOnConflict ? "Your earlier changes are in conflict: settle them in Pending Edits first" : nil
        saveButton.isSensitive = problem == nil && changes > 0 && blocked == nil
        saveButton.tooltip =
            problem ?? blocked ?? (changes == 0 ? "Nothing has changed" : services.isOffline() ? Self.offlineSaving : nil)
        windowTitle.subtitle =
            changes == 0 ? "No changes" : changes == 1 ? "1 change not saved" : "\(changes) changes not saved"
        if rebuildLists { renderLists() }
    }

    func undo() {
        guard history?.canUndo == true else { return }
        history?.undo()
        editor?.render()
        refresh(rebuildLists: true)
    }

    func redo() {
        guard history?.canRedo == true else { return }
        history?.redo()
        editor?.render()
        refresh(rebuildLists: true)
    }

    /// An edit of the reference lists (one undo step), then the lists are shown again.
    func editLists(_ change: (inout PocketDraft) -> Void) {
        history?.edit(change)
        refresh(rebuildLists: true)
        lookUpNames()
    }

    // MARK: Review and save

    /// The review page: each change, current → new, with Revert.
    func review() {
        guard let draft, saveButton.isSensitive else { return }
        reviewRows.forEach { reviewGroup.remove($0.row) }
        let names = instanceNames.mapValues(\.name)
        reviewRows = draft.changes.map { change in
            let row = ActionRow(
                title: change.path, subtitle: "\(change.shown(change.current, names: names)) → \(change.shown(change.new, names: names))")
            let revert = Button(label: "Revert")
            revert.addCSSClass("flat")
            revert.centerVertically()
            revert.setAccessibleLabel("Revert \(change.path)")
            revert.onClicked(weakly(self) { window in window.revert(change.part) })
            row.addSuffix(revert)
            reviewGroup.add(row)
            return (change, row, revert)
        }
        reviewGroup.setProperty(
            "description", draft.changes.count == 1 ? "1 change, current → new." : "\(draft.changes.count) changes, current → new.")
        let offline = services.isOffline()
        confirmButton.label = offline ? "_Save on This Computer" : "_Save to the Pocket"
        confirmButton.tooltip = offline ? Self.offlineSaving : nil
        showPage("review")
        confirmButton.grabFocus()
    }

    private func revert(_ part: PocketChange.Part) {
        history?.edit { $0.revert(part) }
        editor?.render()
        refresh(rebuildLists: true)
        if draft?.changes.isEmpty ?? true { backToEditing() } else { review() }
    }

    func backToEditing() { showPage("editor") }

    /// Whether a save of this pocket waits in the outbox in conflict: a new save would join it,
    /// unseen by the server until the user settles it.
    private var waitsOnConflict: Bool {
        if case .conflict = pendingSave?.state { true } else { false }
    }

    private static let offlineSaving = "Offline: the save is kept on this computer and sent when the server is reachable"

    /// Above the editor, what the pocket shown is: the copy on this computer, with a save still
    /// waiting, or a save waiting on a conflict.
    private func showNotice() {
        var notes: [String] = []
        if services.isOffline() {
            notes.append("Offline: this is the copy of your pocket on this computer. Saved changes are sent when the server answers again.")
        }
        switch pendingSave?.state {
        case .pending?:
            notes.append("Your changes saved at \(DisplayFormat.time(pendingSave?.queuedAt ?? Date())) are shown and wait to be sent.")
        case .conflict?:
            notes.append("Your changes saved offline conflict with a newer pocket on the server: settle them in Pending Edits.")
        case .failed(let message)?:
            notes.append("Your changes saved offline were refused: \(message) See Pending Edits.")
        case nil: break
        }
        offlineLabel.text = notes.joined(separator: " ")
        offlineLabel.isVisible = !notes.isEmpty
    }

    /// The workspace changed the pocket (a favorite starred): shown at once when nothing here is
    /// unsaved; otherwise the draft stays, and saving it shows both versions if they differ.
    func pocketChangedElsewhere() {
        guard window.isVisible else { return }  // a closed window reads the pocket when opened
        guard hasChanges else {
            load()
            return
        }
        offlineLabel.text =
            "The pocket changed since you opened it here (a favorite starred, or an edit sent). Your changes stay; saving shows both versions if they differ."
        offlineLabel.isVisible = true
    }

    /// Shows a page; the header's editing buttons belong to the editor page, Back to the others.
    private func showPage(_ name: String) {
        let editing = name == "editor"
        backButton.isVisible = !editing && name != "loading"
        [saveButton, undoButton, redoButton].forEach { $0.isVisible = editing }
        stack.visiblePage = name
    }

    /// Saves with the revision read; `over` (Keep Mine) saves over the pocket saved elsewhere.
    func save(over current: Pocket? = nil) {
        guard let draft, let pocket = draft.pocketToSave() else { return }
        let base = current ?? draft.base
        confirmButton.isSensitive = false
        keepMineButton.isSensitive = false
        let auth = services.auth
        Task { @MainActor in
            defer {
                completedSaves += 1
                confirmButton.isSensitive = true
                keepMineButton.isSensitive = true
            }
            do throws(HaloError) {
                let outcome = try await auth.savePocketOrQueue(pocket, basedOn: base)
                switch outcome {
                case .sent(let saved):
                    show(saved)
                    windowTitle.subtitle = "Saved"
                case .pending(let shown, let entry):
                    show(shown, pending: entry)
                    windowTitle.subtitle = "Saved on this computer"
                }
                services.onSaved(outcome)
            } catch {
                if let theirs = error.conflictingPocket {
                    showConflict(theirs, mine: pocket)
                } else {
                    backToEditing()
                    problemLabel.show("Could not save: \(error.localizedDescription) Your changes are still here.")
                }
            }
        }
    }

    private func showConflict(_ theirs: Pocket, mine: Pocket) {
        conflict = theirs
        theirsLabel.text = Self.pretty(theirs)
        mineLabel.text = Self.pretty(mine)
        showPage("conflict")
    }

    private static func pretty(_ pocket: Pocket) -> String {
        JSONValue.object([
            "data": .object(pocket.data), "references": .object(pocket.references.mapValues { .array($0.map(JSONValue.string)) }),
        ])
        .indentedText
    }

    /// The meters' scales and the sentences under the headings, from the limits the server
    /// announced (the defaults before its first answer).
    private func showLimits(_ limits: PocketLimitValues) {
        Self.installMeterStyle()
        for (meter, limit) in [(sizeMeter, limits.dataCharacters), (pocketMeter, limits.wholePocketBytes)] {
            meter.addCSSClass("size-meter")
            let bar = OpaquePointer(meter.raw)
            gtk_level_bar_set_max_value(bar, Double(limit))
            gtk_level_bar_add_offset_value(bar, GTK_LEVEL_BAR_OFFSET_LOW, Double(limit) * 0.8)
            gtk_level_bar_add_offset_value(bar, GTK_LEVEL_BAR_OFFSET_HIGH, Double(limit) * 0.95)
            gtk_level_bar_add_offset_value(bar, GTK_LEVEL_BAR_OFFSET_FULL, Double(limit))
        }
        pocketDescription.text =
            "Data and lists together take at most \(DisplayFormat.count(limits.wholePocketBytes)) bytes (most letters take one byte, accented letters two, emoji four)."
        dataDescription.text =
            "Any JSON your apps keep for this account. It is stored as compact JSON of at most \(DisplayFormat.count(limits.dataCharacters)) characters."
    }

    /// A meter past its limit shows red (the bar itself stays full).
    private static func mark(_ meter: Widget, over: Bool) {
        if over { meter.addCSSClass("over") } else { meter.removeCSSClass("over") }
    }

    private static var meterStyleInstalled = false

    /// The meters' colors: the accent while there is room, amber from 80 % of the limit, red past
    /// it. GTK's level bar reads its offsets as a battery's (full is green), the wrong way round
    /// for space used.
    private static func installMeterStyle() {
        guard !meterStyleInstalled, let display = gdk_display_get_default() else { return }
        meterStyleInstalled = true
        let css = """
            levelbar.size-meter block.filled.low { background-color: @accent_bg_color; }
            levelbar.size-meter block.filled.high, levelbar.size-meter block.filled.full { background-color: @warning_bg_color; }
            levelbar.size-meter.over block.filled { background-color: @error_bg_color; }
            """
        let provider = gtk_css_provider_new()
        gtk_css_provider_load_from_data(provider, css, -1)
        gtk_style_context_add_provider_for_display(display, OpaquePointer(provider), guint(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
        g_object_unref(provider)
    }

    // MARK: Wiring

    private func wire() {
        let group = GObjectRef(adopting: UnsafeMutableRawPointer(g_simple_action_group_new()))
        Actions.add("undo", to: group, handler: weakly(self) { $0.undo() })
        Actions.add("redo", to: group, handler: weakly(self) { $0.redo() })
        Actions.add("review", to: group, handler: weakly(self) { $0.review() })
        gtk_widget_insert_action_group(window.widget, "pocket", OpaquePointer(group.raw))
        actions = group
        undoButton.onClicked(weakly(self) { $0.undo() })
        redoButton.onClicked(weakly(self) { $0.redo() })
        saveButton.onClicked(weakly(self) { $0.review() })
        backButton.onClicked(weakly(self) { $0.backToEditing() })
        retryButton.onClicked(weakly(self) { $0.load() })
        confirmButton.onClicked(weakly(self) { $0.save() })
        keepMineButton.onClicked(weakly(self) { window in window.save(over: window.conflict) })
        takeTheirsButton.onClicked(weakly(self) { window in window.conflict.map { window.show($0) } })
        newListRow.onAdd(
            newListRow.addButton(accessibleLabel: "Add the list", tooltip: "Add a list with this name"), weakly(self) { $0.addList() })
        // Closing with changes not saved asks first.
        window.onCloseRequest { [weak self] in
            guard let self, self.hasChanges else { return false }
            self.confirmClosing()
            return true
        }
    }

    private func confirmClosing() {
        let dialog = ConfirmationDialog(
            parent: window, heading: "Discard Changes to the Pocket?",
            body: "Your changes to the pocket have not been saved. Closing drops them.", confirmLabel: "_Discard",
            confirmId: "discard", destructive: true)
        dialog.onResponse { [weak self] response in
            guard response == "discard", let self else { return }
            self.history = nil
            self.window.close()
        }
        dialog.present()
    }
}
