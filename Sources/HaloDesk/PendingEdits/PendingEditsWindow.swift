import CAdw
import CGtk
import Foundation
import HaloServices

/// The Pending Edits window (`Resources/ui/pending-edits.ui`): every edit waiting in the outbox
/// with its kind, instance, module, queue time and state, and what the user can do about it —
/// send now, settle a conflict (mine vs the server's, field by field), retry or discard a
/// refused edit (discarding asks first: it destroys the edit). A pocket save made offline is
/// listed as "Pocket" with what it changes, and settled the same way.
///
/// It reads the outbox afresh on every `reload()`: whenever the shared `PendingEditsModel` or the
/// connection changes.
@MainActor
final class PendingEditsWindow {
    /// What the user can do about one listed entry (nil: not in this state).
    struct EntryActions {
        let keepMine: Button?
        let takeTheirs: Button?
        let retry: Button?
        let discard: Button?
    }

    /// The controls of one listed instance edit (tests drive them like a user would).
    struct EntryControls {
        let row: PendingEditRow
        let group: Widget
        let actions: EntryActions
        var keepMine: Button? { actions.keepMine }
        var takeTheirs: Button? { actions.takeTheirs }
        var retry: Button? { actions.retry }
        var discard: Button? { actions.discard }
    }

    /// The controls of a listed pocket save.
    struct PocketControls {
        let row: PendingPocketRow
        let group: Widget
        let actions: EntryActions
    }

    let window: Window
    /// Everything inside the window (header bar included).
    let content: Widget
    let sendButton: Button
    let offlineLabel: Label
    private let windowTitle: Widget
    private let stack: Widget
    private let entriesBox: Box
    /// Listed entries, in queue order.
    private(set) var listed: [EntryControls] = []
    /// Listed pocket saves (after the instance edits: they are sent after them).
    private(set) var listedPockets: [PocketControls] = []
    /// The discard confirmation waiting for an answer, if any.
    private(set) var pendingDialog: ConfirmationDialog?
    private let model: PendingEditsModel
    /// Module id → name, and a module's field kinds, as the workspace knows them.
    private let moduleNames: @MainActor () -> [String: String]
    private let fieldKinds: @MainActor (String) -> [String: FieldKind]
    /// Instance names by id, for the reference lists of pocket saves (looked up once each).
    private let lookUpNames: @MainActor ([String]) async -> [String: InstanceChoice]
    private var instanceNames: [String: String] = [:]
    private var namesAsked: Set<String> = []

    init(
        model: PendingEditsModel, parent: Widget, moduleNames: @escaping @MainActor () -> [String: String],
        fieldKinds: @escaping @MainActor (String) -> [String: FieldKind],
        lookUpNames: @escaping @MainActor ([String]) async -> [String: InstanceChoice]
    ) throws {
        let builder = try Builder(ui: "pending-edits")
        window = try builder.object("pending_edits_window")
        content = try builder.object("content_box")
        sendButton = try builder.object("send_button")
        offlineLabel = try builder.object("offline_label")
        windowTitle = try builder.object("window_title")
        stack = try builder.object("content_stack")
        entriesBox = try builder.object("entries_box")
        self.model = model
        self.moduleNames = moduleNames
        self.fieldKinds = fieldKinds
        self.lookUpNames = lookUpNames
        window.setTransient(for: parent)
        sendButton.onClicked(weakly(self) { $0.model.send() })
        model.observe(weakly(self) { $0.reload() })
        reload()
    }

    func present() { window.present() }

    /// Re-reads the outbox and the connection state and rebuilds the list.
    func reload() {
        let (entries, pockets) = model.entries()
        let counts = OutboxCounts(entries.map(\.standing) + pockets.map(\.standing))
        windowTitle.setProperty("subtitle", counts.summary ?? "Nothing waiting")

        let connection = model.connection
        if connection.isOnline {
            offlineLabel.isVisible = false
            sendButton.tooltip = "Send the waiting edits to the server now"
        } else {
            let reason =
                "The server cannot be reached" + (connection.offlineReason.map { " (\($0))" } ?? "")
                + ". Waiting edits are sent as soon as it answers again."
            offlineLabel.text = reason
            offlineLabel.isVisible = true
            sendButton.tooltip = reason
        }
        sendButton.isSensitive = connection.isOnline && counts.waiting > 0 && !model.isSending

        entriesBox.removeAll()
        let modules = moduleNames()
        listed = entries.map { entry in
            let row = PendingEditRow(entry: entry, fieldKinds: fieldKinds(entry.instance.moduleId))
            let card = row.entry.standing == .conflict ? differencesCard(row.differences) : nil
            let group = addGroup(
                title: row.name, description: row.subtitle(moduleName: modules[entry.instance.moduleId]),
                accessibleLabel: "\(row.kindLabel) edit of “\(row.name)”", standing: entry.standing, card: card)
            let actions = addActions(
                to: group, for: entry.standing, naming: "“\(row.name)”", kind: row.kindLabel.lowercased(),
                resolve: { [model] in model.resolve(entry, keeping: $0) }, retry: { [model] in model.retry(entry) },
                discard: { [model] in model.discard(entry) })
            return EntryControls(row: row, group: group, actions: actions)
        }
        listedPockets = pockets.map { entry in
            let row = PendingPocketRow(entry: entry)
            let card =
                entry.standing == .conflict
                ? differencesCard(row.differences(names: instanceNames)) : changesCard(row.changes)
            let group = addGroup(
                title: "Pocket", description: row.subtitle, accessibleLabel: "Edit of your pocket", standing: entry.standing, card: card)
            let actions = addActions(
                to: group, for: entry.standing, naming: "your pocket", kind: "pocket",
                resolve: { [model] in model.resolve(entry, keeping: $0) }, retry: { [model] in model.retry(entry) },
                discard: { [model] in model.discard(entry) })
            return PocketControls(row: row, group: group, actions: actions)
        }
        gtk_stack_set_visible_child_name(OpaquePointer(stack.raw), entries.isEmpty && pockets.isEmpty ? "empty" : "list")
        nameInstances(in: listedPockets.flatMap { $0.row.changes + $0.row.conflictChanges })
    }

    /// Looks up the names of the instance ids the pocket saves list, then shows them.
    private func nameInstances(in changes: [PocketChange]) {
        let ids = PocketChange.instanceIds(in: changes).subtracting(namesAsked)
        guard !ids.isEmpty else { return }
        namesAsked.formUnion(ids)
        Task { @MainActor in
            let found = await self.lookUpNames(Array(ids))
            guard !found.isEmpty else { return }
            self.instanceNames.merge(found.mapValues(\.name)) { _, new in new }
            self.reload()
        }
    }

    /// The controls listed for the entry with this queue position.
    func controls(forEntry id: Int64) -> EntryControls? { listed.first { $0.row.entry.id == id } }

    // MARK: One entry

    /// A group for one entry: its title and description, its state (with the server's message in
    /// full) and `card` below.
    private func addGroup(title: String, description: String, accessibleLabel: String, standing: PendingStanding, card: Widget?)
        -> Widget
    {
        let group = Widget(sinking: UnsafeMutableRawPointer(adw_preferences_group_new()))
        group.setProperty("title", title)
        group.setProperty("description", description)
        group.setAccessibleLabel(accessibleLabel)
        let stateRow = Widget(sinking: UnsafeMutableRawPointer(adw_action_row_new()))
        stateRow.setProperty("title", standing.label)
        stateRow.setAccessibleLabel("State: \(standing.label)")
        let actionRow = stateRow.raw.assumingMemoryBound(to: AdwActionRow.self)
        adw_action_row_set_icon_name(actionRow, standing.iconName)
        adw_action_row_set_title_lines(actionRow, 0)  // the server's message in full
        add(stateRow, to: group)
        if let card { add(card, to: group) }
        entriesBox.append(group)
        return group
    }

    private func add(_ child: Widget, to group: Widget) {
        adw_preferences_group_add(group.raw.assumingMemoryBound(to: AdwPreferencesGroup.self), child.widget)
    }

    /// The buttons of an entry in conflict (Keep Mine, Take Theirs) or refused (Retry, Discard…).
    private func addActions(
        to group: Widget, for standing: PendingStanding, naming name: String, kind: String,
        resolve: @escaping @MainActor (ConflictResolution) -> Void, retry: @escaping @MainActor () -> Void,
        discard: @escaping @MainActor () -> Void
    ) -> EntryActions {
        switch standing {
        case .waiting:
            return EntryActions(keepMine: nil, takeTheirs: nil, retry: nil, discard: nil)
        case .conflict:
            let keep = Button(label: "Keep Mine")
            keep.setAccessibleLabel("Keep my version of \(name)")
            keep.tooltip = "Send my version, replacing the server's"
            keep.onClicked { resolve(.keepMine) }
            let take = Button(label: "Take Theirs")
            take.setAccessibleLabel("Take the server's version of \(name)")
            take.tooltip = "Drop my edit and keep the server's version"
            take.onClicked { resolve(.takeTheirs) }
            add(buttonBar([take, keep]), to: group)
            return EntryActions(keepMine: keep, takeTheirs: take, retry: nil, discard: nil)
        case .failed:
            let again = Button(label: "Retry")
            again.setAccessibleLabel("Retry sending the edit of \(name)")
            again.onClicked { retry() }
            let drop = Button(label: "Discard…")
            drop.addCSSClass("destructive-action")
            drop.setAccessibleLabel("Discard the edit of \(name)")
            drop.onClicked(weakly(self) { $0.confirmDiscard(of: name, kind: kind, discard) })
            add(buttonBar([drop, again]), to: group)
            return EntryActions(keepMine: nil, takeTheirs: nil, retry: again, discard: drop)
        }
    }

    /// What a pocket save changes: one line per part, as it was → as saved, in a card.
    private func changesCard(_ changes: [PocketChange]) -> Widget {
        grid(
            headers: ["Part", "Before", "After"], accessibleLabel: "What this edit changes in the pocket",
            lines: changes.map { [$0.path, $0.shown($0.current, names: instanceNames), $0.shown($0.new, names: instanceNames)] })
    }

    /// Field | Mine | On the server, one line per differing field (or pocket part), in a card.
    private func differencesCard(_ differences: [PendingEditRow.Difference]) -> Widget {
        // A conflict can also come from a newer server version with the same content.
        let lines =
            differences.isEmpty
            ? [PendingEditRow.Difference(field: "—", mine: "Same content", theirs: "Same content, newer version")] : differences
        return grid(
            headers: ["Field", "Mine", "On the server"], accessibleLabel: "Differences between my version and the server's",
            lines: lines.map { [$0.field, $0.mine, $0.theirs] })
    }

    /// A card holding a grid: a heading per column, then the lines (the first column dimmed).
    private func grid(headers: [String], accessibleLabel: String, lines: [[String]]) -> Widget {
        // Widgets are attached while their Swift wrapper (which holds the only reference) lives.
        let card = Box(vertical: true)
        card.addCSSClass("card")
        gtk_widget_set_margin_top(card.widget, 12)
        card.setAccessibleLabel(accessibleLabel)
        let grid = Widget(sinking: UnsafeMutableRawPointer(gtk_grid_new()))
        let gridPointer = grid.raw.assumingMemoryBound(to: GtkGrid.self)
        gtk_grid_set_column_spacing(gridPointer, 18)
        gtk_grid_set_row_spacing(gridPointer, 6)
        for edge in [gtk_widget_set_margin_start, gtk_widget_set_margin_end, gtk_widget_set_margin_top, gtk_widget_set_margin_bottom] {
            edge(grid.widget, 12)
        }
        for (column, title) in headers.enumerated() {
            let header = Label(title, classes: ["heading"])
            withExtendedLifetime(header) { gtk_grid_attach(gridPointer, header.widget, gint(column), 0, 1, 1) }
        }
        for (index, line) in lines.enumerated() {
            for (column, text) in line.enumerated() {
                let cell = Label(text, classes: column == 0 ? ["dim-label"] : [], wrap: true, selectable: column > 0)
                if column > 0 { cell.expand(horizontally: true) }
                withExtendedLifetime(cell) { gtk_grid_attach(gridPointer, cell.widget, gint(column), gint(index + 1), 1, 1) }
            }
        }
        withExtendedLifetime(grid) { card.append(grid) }
        return card
    }

    private func buttonBar(_ buttons: [Button]) -> Widget {
        let bar = Box(vertical: false, spacing: 12)
        gtk_widget_set_halign(bar.widget, GTK_ALIGN_END)
        gtk_widget_set_margin_top(bar.widget, 12)
        buttons.forEach(bar.append)
        return bar
    }

    // MARK: Actions

    /// Discarding destroys the edit: asked first.
    private func confirmDiscard(of name: String, kind: String, _ discard: @escaping @MainActor () -> Void) {
        let dialog = ConfirmationDialog(
            parent: sendButton, heading: "Discard This Edit?",
            body: "Your \(kind) edit of \(name) is lost for good; the server keeps its copy.",
            confirmLabel: "_Discard", confirmId: "discard", destructive: true)
        dialog.onResponse { [weak self, weak dialog] response in
            guard let self else { return }
            dialog?.close()
            self.pendingDialog = nil
            guard response == "discard" else { return }
            discard()
        }
        pendingDialog = dialog
        dialog.present()
    }
}
