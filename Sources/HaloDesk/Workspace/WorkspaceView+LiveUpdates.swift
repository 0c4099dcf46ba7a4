import Foundation
import HaloServices

/// Live updates: the list and the open instance follow changes made elsewhere (the server's live
/// event stream, through the session's notifications add-on) within a second. Unsaved edits are
/// never overwritten: when the open instance changes on the server meanwhile, the change banner
/// says who changed it and offers the differences, or to keep editing.
extension WorkspaceView {
    /// The list is read again at most this often: a burst of 500 edits elsewhere is a few
    /// refreshes, not 500. A change after a quiet spell is applied at once.
    static let liveRefreshDelay: Duration = .milliseconds(120)

    func followLiveUpdates() {
        guard let notifications = session.notifications else { return }
        let events = notifications.contentEvents()
        liveFollower = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                self.receive(event)
            }
        }
    }

    func receive(_ event: LiveEvent) {
        switch event {
        case .content(let change): changedElsewhere.append(change)
        case .reset: resyncPending = true
        case .notification: return
        }
        guard !isLiveRefreshScheduled else { return }
        isLiveRefreshScheduled = true
        let wait = lastLiveRefresh.map { Self.liveRefreshDelay - ($0.duration(to: .now)) } ?? .zero
        Task { @MainActor [weak self] in
            // Even at once, after the events that arrived together (one main-loop turn later).
            if wait > .zero { try? await Task.sleep(for: wait) }
            self?.applyChangesMadeElsewhere()
        }
    }

    private func applyChangesMadeElsewhere() {
        isLiveRefreshScheduled = false
        lastLiveRefresh = .now
        let changes = changedElsewhere, everything = resyncPending
        changedElsewhere = []
        resyncPending = false
        let listShowsAChange: Bool =
            switch pager.scope {
            case .module(let id): everything || changes.contains { $0.moduleId == id }
            case .instances(let ids): everything || changes.contains { $0.instanceId.map(ids.contains) ?? true }
            case nil: false
            }
        // A module renamed, deleted or given other fields elsewhere: the sidebar and the field
        // catalog read the modules again (a deleted module's list moves to another module), and
        // then the open instance of that module is read again with its new fields (the banner
        // instead, when it has unsaved edits).
        let schemaChanges = changes.filter { $0.kind == .moduleChanged || $0.kind == .moduleDeleted }
        let openModuleChanged = schemaChanges.contains { $0.moduleId == editor.instance?.moduleId }
        if !schemaChanges.isEmpty {
            let open = editor.instance
            loadModules { [weak self] in
                guard let self, let open, let id = open.id, !self.editor.isNew, self.editor.instance?.id == id,
                    let change = schemaChanges.last(where: { $0.moduleId == open.moduleId })
                else { return }
                self.followOpenInstance(id: id, author: change.author, becauseFieldsChanged: true)
            }
        }
        if listShowsAChange {
            if BenchmarkMarks.isEnabled { liveChangesAwaitingPaint.formUnion(changes.compactMap(\.instanceId)) }
            pager.refetch()
        }
        // When the open instance's module changed too, it is read again after the modules (above):
        // read now, it would be shown with the old fields and then look unchanged.
        if let open = editor.instance, let id = open.id, !editor.isNew, !openModuleChanged,
            everything || changes.contains(where: { $0.instanceId == id || ($0.kind == .moduleCleared && $0.moduleId == open.moduleId) })
        {
            followOpenInstance(id: id, author: changes.last { $0.instanceId == id }?.author)
        } else {
            liveRefreshes += 1
        }
    }

    /// Marks "live-shown <id>" after the first frame that paints a row changed elsewhere (benchmark).
    func markLiveChangesPainted(loaded range: Range<Int>) {
        guard !liveChangesAwaitingPaint.isEmpty else { return }
        for row in range where pager.isLoaded(row: row) {
            if let id = pager.instance(at: row)?.id, liveChangesAwaitingPaint.remove(id) != nil {
                BenchmarkMarks.markNextPaint(of: table.columnView, "live-shown \(id)")
            }
        }
    }

    /// Reads the open instance again: shows the server's version when nothing is edited, else the
    /// banner (which says whether the module's fields or the instance itself changed).
    private func followOpenInstance(id: String, author: String?, becauseFieldsChanged: Bool = false) {
        Task { @MainActor in
            defer { self.liveRefreshes += 1 }
            let current: ContentInstance?
            do throws(HaloError) {
                current = try await self.fetchInstance(id: id)
            } catch {
                return  // the list's own read says what went wrong
            }
            // The user moved on, or this is the echo of their own save.
            guard let shown = self.editor.instance, shown.id == id, !self.isSavingOpenInstance else { return }
            let who = author.map { $0.isEmpty ? "Someone" : $0 } ?? "Someone"
            guard let current else {
                self.serverVersion = nil
                return self.showChangeBanner("\(who) deleted this instance on the server.")
            }
            // New fields are shown even for an unchanged instance, unless that would drop edits.
            let showsNewFields = becauseFieldsChanged && !self.editor.isDirty
            guard showsNewFields || current.updatedAt != shown.updatedAt || current.name != shown.name else { return }
            if self.editor.isDirty {
                self.serverVersion = current
                self.showChangeBanner(
                    becauseFieldsChanged
                        ? "\(who) changed the fields of this module while you were editing. What you typed is kept."
                        : "\(who) changed this instance on the server while you were editing it.")
            } else {
                self.editor.show(current, fields: self.fields(for: current), isNew: false)
                self.resolveRelationNames()
            }
        }
    }

    func showChangeBanner(_ text: String) {
        changeBannerLabel.text = text
        changeBannerShowButton.isVisible = serverVersion != nil
        changeBanner.isVisible = true
    }

    func hideChangeBanner() {
        serverVersion = nil
        changeBanner.isVisible = false
    }

    /// Keeps the user's edits; a save writes them over the server's version.
    func keepEditing() {
        hideChangeBanner()
        editor.nameEntry.grabFocus()
    }

    /// What changed on the server since the editor loaded the instance, next to the user's values,
    /// with the choice to keep editing or to take the server's version (dropping the edits).
    func showServerChanges() {
        guard let server = serverVersion, let loaded = editor.instance else { return }
        let mine = (try? editor.editedInstance()) ?? loaded
        let differences = Self.differences(loaded: loaded, server: server, mine: mine, kinds: fieldCatalog.kinds(moduleId: server.moduleId))
        let body =
            differences.isEmpty
            ? "Only its metadata changed; your edits do not touch what changed."
            : differences.joined(separator: "\n")
        let dialog = ConfirmationDialog(
            parent: widget, heading: "Changed on the Server", body: body, confirmLabel: "_Discard My Edits", confirmId: "theirs",
            destructive: true)
        dialog.addResponse("keep", label: "_Keep Editing", isDefault: true)
        dialog.onResponse { [weak self] choice in
            guard let self else { return }
            self.pendingDialog = nil
            switch choice {
            case "theirs":
                self.showDetail(server)
                self.toast("Showing the version on the server.")
            case "keep": self.keepEditing()
            default: return
            }
        }
        pendingDialog = dialog
        dialog.present()
    }

    /// One line per name or field the server changed: its value there, and the user's when different.
    static func differences(loaded: ContentInstance, server: ContentInstance, mine: ContentInstance, kinds: [String: FieldKind]) -> [String]
    {
        func text(_ value: JSONValue?, _ field: String) -> String {
            guard let value else { return "empty" }
            let shown = FieldValueText.display(value, kind: kinds[field] ?? .object)
            return "“\(shown.count > 60 ? shown.prefix(59) + "…" : shown)”"
        }
        var lines: [String] = []
        if server.name != loaded.name {
            let yours = mine.name == server.name ? "" : " (yours: “\(mine.name)”)"
            lines.append("• Name: now “\(server.name)”\(yours)")
        }
        for field in Set(server.values.keys).union(loaded.values.keys).sorted() where server.values[field] != loaded.values[field] {
            let yours = mine.values[field] == server.values[field] ? "" : " (yours: \(text(mine.values[field], field)))"
            lines.append("• \(field): now \(text(server.values[field], field))\(yours)")
        }
        return lines
    }
}
