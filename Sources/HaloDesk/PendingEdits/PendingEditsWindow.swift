import CAdw
import CGtk
import Foundation
import HaloServices

/// The Pending Edits window (`Resources/ui/pending-edits.ui`): every edit waiting in the outbox
/// with its kind, instance, module, queue time and state, and what the user can do about it —
/// send now, settle a conflict (mine vs the server's, field by field), retry or discard a
/// refused edit (discarding asks first: it destroys the edit).
///
/// It reads the outbox afresh on every `reload()`: whenever the shared `PendingEditsModel` or the
/// connection changes.
@MainActor
final class PendingEditsWindow {
    /// The controls of one listed entry (tests drive them like a user would).
    struct EntryControls {
        let row: PendingEditRow
        let group: Widget
        let keepMine: Button?
        let takeTheirs: Button?
        let retry: Button?
        let discard: Button?
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
    /// The discard confirmation waiting for an answer, if any.
    private(set) var pendingDialog: ConfirmationDialog?
    private let model: PendingEditsModel
    /// Module id → name, and a module's field kinds, as the workspace knows them.
    private let moduleNames: @MainActor () -> [String: String]
    private let fieldKinds: @MainActor (String) -> [String: FieldKind]

    init(
        model: PendingEditsModel, parent: Widget, moduleNames: @escaping @MainActor () -> [String: String],
        fieldKinds: @escaping @MainActor (String) -> [String: FieldKind]
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
        window.setTransient(for: parent)
        sendButton.onClicked(weakly(self) { $0.model.send() })
        model.observe(weakly(self) { $0.reload() })
        reload()
    }

    func present() { window.present() }

    /// Re-reads the outbox and the connection state and rebuilds the list.
    func reload() {
        let entries = model.entries()
        let counts = OutboxCounts(entries)
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
            let kinds = fieldKinds(entry.instance.moduleId)
            return addGroup(for: PendingEditRow(entry: entry, fieldKinds: kinds), moduleName: modules[entry.instance.moduleId])
        }
        gtk_stack_set_visible_child_name(OpaquePointer(stack.raw), entries.isEmpty ? "empty" : "list")
    }

    /// The controls listed for the entry with this queue position.
    func controls(forEntry id: Int64) -> EntryControls? { listed.first { $0.row.entry.id == id } }

    // MARK: One entry

    private func addGroup(for row: PendingEditRow, moduleName: String?) -> EntryControls {
        let group = Widget(sinking: UnsafeMutableRawPointer(adw_preferences_group_new()))
        group.setProperty("title", row.name)
        group.setProperty("description", row.subtitle(moduleName: moduleName))
        group.setAccessibleLabel("\(row.kindLabel) edit of “\(row.name)”")
        let addToGroup = { (child: Widget) in
            adw_preferences_group_add(group.raw.assumingMemoryBound(to: AdwPreferencesGroup.self), child.widget)
        }

        let stateRow = Widget(sinking: UnsafeMutableRawPointer(adw_action_row_new()))
        stateRow.setProperty("title", row.stateLabel)
        stateRow.setAccessibleLabel("State: \(row.stateLabel)")
        let icon: String
        switch row.entry.state {
        case .pending: icon = "document-send-symbolic"
        case .conflict: icon = "dialog-warning-symbolic"
        case .failed: icon = "dialog-error-symbolic"
        }
        let actionRow = stateRow.raw.assumingMemoryBound(to: AdwActionRow.self)
        adw_action_row_set_icon_name(actionRow, icon)
        adw_action_row_set_title_lines(actionRow, 0)  // the server's message in full
        addToGroup(stateRow)

        var keepMine: Button?, takeTheirs: Button?, retry: Button?, discard: Button?
        switch row.entry.state {
        case .pending:
            break
        case .conflict:
            addToGroup(differencesCard(row.differences))
            let keep = Button(label: "Keep Mine")
            keep.setAccessibleLabel("Keep my version of “\(row.name)”")
            keep.tooltip = "Send my version, replacing the server's"
            keep.onClicked(weakly(self) { $0.resolve(row.entry, .keepMine) })
            let take = Button(label: "Take Theirs")
            take.setAccessibleLabel("Take the server's version of “\(row.name)”")
            take.tooltip = "Drop my edit and keep the server's version"
            take.onClicked(weakly(self) { $0.resolve(row.entry, .takeTheirs) })
            addToGroup(buttonBar([take, keep]))
            keepMine = keep
            takeTheirs = take
        case .failed:
            let again = Button(label: "Retry")
            again.setAccessibleLabel("Retry sending the edit of “\(row.name)”")
            again.onClicked(weakly(self) { $0.retry(row.entry) })
            let drop = Button(label: "Discard…")
            drop.addCSSClass("destructive-action")
            drop.setAccessibleLabel("Discard the edit of “\(row.name)”")
            drop.onClicked(weakly(self) { $0.confirmDiscard(row) })
            addToGroup(buttonBar([drop, again]))
            retry = again
            discard = drop
        }
        entriesBox.append(group)
        return EntryControls(row: row, group: group, keepMine: keepMine, takeTheirs: takeTheirs, retry: retry, discard: discard)
    }

    /// Field | Mine | On the server, one line per differing field, in a card.
    private func differencesCard(_ differences: [PendingEditRow.Difference]) -> Widget {
        // Widgets are attached while their Swift wrapper (which holds the only reference) lives.
        let card = Box(vertical: true)
        card.addCSSClass("card")
        gtk_widget_set_margin_top(card.widget, 12)
        card.setAccessibleLabel("Differences between my version and the server's")
        let grid = Widget(sinking: UnsafeMutableRawPointer(gtk_grid_new()))
        let gridPointer = grid.raw.assumingMemoryBound(to: GtkGrid.self)
        gtk_grid_set_column_spacing(gridPointer, 18)
        gtk_grid_set_row_spacing(gridPointer, 6)
        for edge in [gtk_widget_set_margin_start, gtk_widget_set_margin_end, gtk_widget_set_margin_top, gtk_widget_set_margin_bottom] {
            edge(grid.widget, 12)
        }
        for (column, title) in ["Field", "Mine", "On the server"].enumerated() {
            let header = Label(title, classes: ["heading"])
            withExtendedLifetime(header) { gtk_grid_attach(gridPointer, header.widget, gint(column), 0, 1, 1) }
        }
        // A conflict can also come from a newer server version with the same content.
        let lines =
            differences.isEmpty
            ? [PendingEditRow.Difference(field: "—", mine: "Same content", theirs: "Same content, newer version")] : differences
        for (index, difference) in lines.enumerated() {
            let cells = [
                Label(difference.field, classes: ["dim-label"], wrap: true),
                Label(difference.mine, classes: [], wrap: true, selectable: true),
                Label(difference.theirs, classes: [], wrap: true, selectable: true),
            ]
            for (column, cell) in cells.enumerated() {
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

    private func resolve(_ entry: OutboxEntry, _ resolution: ConflictResolution) { model.resolve(entry, keeping: resolution) }

    private func retry(_ entry: OutboxEntry) { model.retry(entry) }

    private func confirmDiscard(_ row: PendingEditRow) {
        let dialog = ConfirmationDialog(
            parent: sendButton, heading: "Discard This Edit?",
            body: "Your \(row.kindLabel.lowercased()) edit of “\(row.name)” is lost for good; the server keeps its copy.",
            confirmLabel: "_Discard", confirmId: "discard", destructive: true)
        dialog.onResponse { [weak self, weak dialog] response in
            guard let self else { return }
            dialog?.close()
            self.pendingDialog = nil
            guard response == "discard" else { return }
            self.model.discard(row.entry)
        }
        pendingDialog = dialog
        dialog.present()
    }
}
