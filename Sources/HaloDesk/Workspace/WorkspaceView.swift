import CAdw
import CGtk
import Foundation
import HaloServices

/// The workspace: modules | instances | detail in an `AdwLeaflet` (folds on narrow windows).
///
/// The layout (panes, per-pane header bars, search, buttons, status line) is
/// `Resources/ui/workspace.ui`; this class wires its behaviour. It only talks to the server
/// through `session.core.content` (HaloServices); results and errors go to the toaster as
/// sentences. The main window embeds `widget` (hiding its own header bar, since every pane has
/// one) and registers the accelerators `installActions(on:)` returns.
@MainActor
final class WorkspaceView {
    /// The root widget to embed in the window.
    let widget: Widget

    let session: WorkspaceSession
    let sidebar: ModuleSidebar
    let pager: InstancePager
    let table: InstanceTable
    let editor: InstanceEditor
    let bulk: BulkPanel
    let connection = ConnectionState()
    /// True while the outbox is being sent.
    private(set) var isSendingPendingEdits = false
    /// "3 edits pending · 1 conflict" beside the status line: opens the Pending Edits window;
    /// hidden when the outbox is empty.
    let pendingButton: Button
    /// The Pending Edits window, once opened.
    private(set) var pendingEditsWindow: PendingEditsWindow?
    let searchEntry: Editable
    let newButton: Button
    let saveButton: Button
    let deleteButton: Button
    let statusLabel: Label
    /// The sidebar's header title ("Modules"); its subtitle names the workspace (`showSignedIn`).
    let sidebarTitle: WindowTitle
    /// The detail pane's header title: the open instance (or the size of a multiple selection).
    let detailTitle: WindowTitle
    let primaryMenuButton: Widget
    let listBackButton: Button
    let detailBackButton: Button
    private let leaflet: Leaflet
    private let detailStack: Stack
    private let listPane: Widget
    private let detailPane: Widget
    private let toast: @MainActor (String) -> Void
    /// The dialog waiting for an answer (delete confirmation, unsaved changes), if any.
    private(set) var pendingDialog: ConfirmationDialog?
    /// Finished save/delete/batch requests (tests wait on it).
    private(set) var completedOperations = 0
    /// Fields per module id, learnt from the module description or from loaded instances.
    private var knownFields: [String: [FieldDescriptor]] = [:]
    private var isRestoringSelection = false

    init(session: WorkspaceSession, toaster: @escaping @MainActor (String) -> Void) throws {
        self.session = session
        toast = toaster
        pager = InstancePager(content: session.core.content, connection: connection)
        let builder = try Builder(ui: "workspace")
        leaflet = try builder.object("leaflet")
        widget = leaflet
        sidebar = ModuleSidebar(list: try builder.object("module_list"))
        table = try InstanceTable(pager: pager, builder: builder)
        editor = try InstanceEditor()
        bulk = try BulkPanel()
        searchEntry = try builder.object("search_entry")
        newButton = try builder.object("new_button")
        saveButton = try builder.object("save_button")
        deleteButton = try builder.object("delete_button")
        statusLabel = try builder.object("status_label")
        pendingButton = try builder.object("pending_button")
        sidebarTitle = try builder.object("sidebar_title")
        detailTitle = try builder.object("detail_title")
        primaryMenuButton = try builder.object("primary_menu_button")
        listBackButton = try builder.object("list_back_button")
        detailBackButton = try builder.object("detail_back_button")
        detailStack = try builder.object("detail_stack")
        listPane = try builder.object("list_pane")
        detailPane = try builder.object("detail_pane")
        try PrimaryMenu.attach(to: primaryMenuButton)
        detailStack.addPage(editor.widget, named: "editor")
        detailStack.addPage(bulk.widget, named: "bulk")
        wireEvents()
        updateDetailTitle()
        // Show the default order (recently updated first) on its column header.
        table.columnView.sort(byKey: SortBy.updatedAt.rawValue, ascending: false)
        updateStatus()
        loadModules()
    }

    /// Where the user works, under the sidebar's "Modules" title (the window title is hidden in
    /// the workspace); its tooltip adds who is signed in (the narrow sidebar has no room for both).
    func showSignedIn(workspace: String, user: String) {
        sidebarTitle.subtitle = workspace
        sidebarTitle.tooltip = "\(workspace) — \(user)"
    }

    /// True while the open instance has edits that are not saved (the shell can ask before
    /// closing the window or switching workspace).
    var hasUnsavedChanges: Bool { editor.isDirty }

    /// True when the window is too narrow for the three panes side by side.
    var isFolded: Bool { leaflet.isFolded }

    /// Shows the pane named "modules", "instances" or "detail" (the leaflet page names in
    /// workspace.ui); only visible in itself when folded. For keyboard shortcuts and tests.
    func showPane(named name: String) {
        adw_leaflet_set_visible_child_name(halo_adw_leaflet(leaflet.raw), name)
    }

    // MARK: Events

    private func wireEvents() {
        // Back buttons are only visible while folded (bound in workspace.ui).
        for back in [listBackButton, detailBackButton] {
            back.onClicked(weakly(self) { view in adw_leaflet_navigate(halo_adw_leaflet(view.leaflet.raw), ADW_NAVIGATION_DIRECTION_BACK) })
        }
        editor.onHeaderChanged = weakly(self) { $0.updateDetailTitle() }
        sidebar.onSelect = weakly(self) { view, module in
            guard module.id != view.pager.moduleId else { return }  // already shown
            view.confirmLeavingEdits {
                view.openModule(module)
            } onCancel: {
                if let id = view.pager.moduleId { view.sidebar.select(moduleId: id) }
            }
        }
        pager.onReset = weakly(self) { view, total in
            view.table.reload(count: total)
            // Rebuilding the rows cleared the selection. An instance open in the editor (one just
            // created, which changed the total) stays open; otherwise the detail follows the selection.
            if view.visibleDetail == "editor", view.editor.instance?.id != nil {
                view.deleteButton.isSensitive = true
            } else {
                view.selectionChanged()
            }
            if let id = view.pager.moduleId, view.pager.nameFilter.isEmpty { view.sidebar.setCount(total, forModuleId: id) }
            view.updateStatus()
        }
        pager.onRowsLoaded = weakly(self) { view, range in
            view.learnFields(from: range)
            view.table.refresh(range)
            view.bulk.updateFields(view.knownFields[view.pager.moduleId ?? ""] ?? [])
        }
        pager.onError = weakly(self) { view, message in view.toast(message) }
        connection.onChange = weakly(self) { view in
            view.updateStatus()
            view.pendingEditsWindow?.reload()
        }
        let content = session.core.content
        connection.readOutbox = {
            guard let counts = try? content.outbox().stateCounts() else { return OutboxCounts() }
            return OutboxCounts(waiting: counts.pending, conflicts: counts.conflicts, failed: counts.failed)
        }
        pendingButton.onClicked(weakly(self) { $0.showPendingEdits() })
        connection.onPendingEditsSendable = weakly(self) { $0.sendPendingEdits() }
        connection.refreshPendingEdits()
        table.columnView.onSelectionChanged(weakly(self) { $0.selectionChanged() })
        table.columnView.onActivate(
            weakly(self) { view, _ in
                if view.leaflet.isFolded { view.leaflet.show(view.detailPane) }
            })
        table.columnView.onSortChanged(
            weakly(self) { view in
                let state = view.table.columnView.sortState
                let sort = state.flatMap { state in
                    SortBy(rawValue: state.key).map { InstancePager.Sort(field: $0, order: state.ascending ? .ascending : .descending) }
                }
                view.pager.show(moduleId: view.pager.moduleId, sort: sort ?? .recentFirst)
            })
        searchEntry.onSearchChanged(
            weakly(self) { view in view.pager.show(moduleId: view.pager.moduleId, nameFilter: view.searchEntry.text) })
        newButton.onClicked(weakly(self) { $0.newInstance() })
        saveButton.onClicked(weakly(self) { $0.save() })
        deleteButton.onClicked(weakly(self) { $0.deleteSelection() })
        editor.onDirtyChanged = weakly(self) { view, dirty in view.saveButton.isSensitive = dirty }
        editor.onOpenRelation = weakly(self) { view, id in view.openInstance(id: id) }
        bulk.onApply = weakly(self) { view, field, text in view.bulkEdit(field: field, text: text) }
        bulk.onDelete = weakly(self) { $0.deleteSelection() }
    }

    /// Window actions and their accelerators (the caller registers the accelerators with
    /// `gtk_application_set_accels_for_action`).
    @discardableResult
    func installActions(on window: GObjectRef) -> [(action: String, accelerators: [String])] {
        Actions.add("find", to: window, handler: weakly(self) { $0.searchEntry.grabFocus() })
        Actions.add("new-instance", to: window, handler: weakly(self) { $0.newInstance() })
        Actions.add("save", to: window, handler: weakly(self) { $0.save() })
        Actions.add(
            "delete", to: window,
            handler: weakly(self) { view in
                // The Delete accelerator must not take the key from a text field being edited.
                if !TextFocus.deleteForward(in: view.widget) { view.deleteSelection() }
            })
        Actions.add("refresh", to: window, handler: weakly(self) { $0.refresh() })
        return [
            ("win.find", ["<Control>f"]), ("win.new-instance", ["<Control>n"]), ("win.save", ["<Control>s"]),
            ("win.delete", ["Delete"]), ("win.refresh", ["F5"]),
        ]
    }

    // MARK: Browsing

    private func loadModules() {
        let content = session.core.content
        Task { @MainActor in
            do throws(HaloError) {
                let modules = try await content.getModules(withFields: true).modules.sorted { ($0.name ?? "") < ($1.name ?? "") }
                self.connection.record(success: true)
                for module in modules where module.fields?.isEmpty == false {
                    if let id = module.id { self.knownFields[id] = self.fields(declaredBy: module) }
                }
                self.sidebar.show(modules)
                if let first = modules.first(where: { $0.id == self.pager.moduleId }) ?? modules.first, let id = first.id {
                    self.sidebar.select(moduleId: id)
                    if self.pager.moduleId != id { self.openModule(first) }
                }
                await self.loadCounts(modules)
            } catch {
                self.connection.record(error: error)
                self.toast("Could not load the modules: \(error.description)")
            }
        }
    }

    private func loadCounts(_ modules: [Module]) async {
        for module in modules {
            guard let id = module.id else { continue }
            let query = SearchQuery().moduleIds([id]).pagination(page: 1, limit: 1)
            if let result = try? await session.core.content.search(query: query) {
                sidebar.setCount(result.paginationInfo.totalItems, forModuleId: id)
            }
        }
    }

    private func openModule(_ module: Module) {
        showDetail(nil)
        pager.show(moduleId: module.id, nameFilter: searchEntry.text)
        leaflet.show(listPane)
    }

    /// Opens an instance by id (relation links): switches to its module and shows it.
    func openInstance(id: String) {
        confirmLeavingEdits { [weak self] in
            guard let self else { return }
            let content = self.session.core.content
            Task { @MainActor in
                do throws(HaloError) {
                    guard let instance = try await content.search(query: SearchQuery().instanceIds([id]).skipPagination()).instances.first
                    else {
                        self.toast("The related instance no longer exists.")
                        return
                    }
                    self.connection.record(success: true)
                    if self.pager.moduleId != instance.moduleId,
                        let module = self.sidebar.modules.first(where: { $0.id == instance.moduleId })
                    {
                        self.sidebar.select(moduleId: instance.moduleId)
                        self.openModule(module)
                    }
                    self.showDetail(instance)
                } catch {
                    self.connection.record(error: error)
                    self.toast("Could not open the related instance: \(error.description)")
                }
            }
        } onCancel: {
        }
    }

    func refresh() {
        confirmLeavingEdits { [weak self] in
            guard let self else { return }
            self.showDetail(nil)
            self.loadModules()
            self.pager.reload()
        } onCancel: {
        }
    }

    private func selectionChanged() {
        guard !isRestoringSelection, !table.isRestoringSelection else { return }
        let positions = table.columnView.selectedPositions
        deleteButton.isSensitive = !positions.isEmpty
        if positions.count > 1 {
            confirmLeavingEdits { [weak self] in
                guard let self else { return }
                self.detailVisible("bulk")
                if !self.leaflet.isFolded { self.leaflet.show(self.detailPane) }
                self.editor.clear()
                self.bulk.show(fields: self.knownFields[self.pager.moduleId ?? ""] ?? [])
            } onCancel: { [weak self] in
                self?.reselectEditedInstance()
            }
            return
        }
        guard let position = positions.first, let instance = pager.instance(at: position) else {
            // Nothing selected: keep a new or edited instance, or the report of a bulk change, on
            // screen; else show the empty page.
            let showsBulkReport = visibleDetail == "bulk" && !bulk.report.text.isEmpty
            if positions.isEmpty, !editor.isNew, !editor.isDirty, !showsBulkReport { showDetail(nil) }
            return
        }
        guard instance.id != editor.instance?.id || editor.isNew else { return }
        confirmLeavingEdits { [weak self] in
            guard let self else { return }; self.showDetail(instance)
        } onCancel: { [weak self] in
            self?.reselectEditedInstance()
        }
    }

    private func showDetail(_ instance: ContentInstance?) {
        guard let instance else {
            editor.clear()
            detailVisible("empty")
            return
        }
        editor.show(instance, fields: fields(for: instance), isNew: instance.id == nil)
        deleteButton.isSensitive = instance.id != nil
        detailVisible("editor")
        // Unfolded, this only decides which pane a later fold shows; folded, a selection by
        // keyboard stays in the list until the row is activated.
        if !leaflet.isFolded { leaflet.show(detailPane) }
        resolveRelationNames()
    }

    /// The detail page on screen: "empty", "editor" or "bulk".
    private(set) var visibleDetail = "empty"

    private func detailVisible(_ name: String) {
        visibleDetail = name
        detailStack.visiblePage = name
        updateDetailTitle()
    }

    /// The detail header names what the pane shows (the instance, or how many are selected);
    /// Save only makes sense for one instance.
    private func updateDetailTitle() {
        saveButton.isVisible = visibleDetail == "editor"
        switch visibleDetail {
        case "editor":
            detailTitle.title = editor.headerTitle
            detailTitle.subtitle = editor.headerSubtitle
        case "bulk":
            let count = table.columnView.selectedPositions.count
            detailTitle.title = "\(count) Selected"
            detailTitle.subtitle = pager.moduleId.flatMap { id in sidebar.modules.first { $0.id == id }?.name } ?? ""
        default:
            detailTitle.title = ""
            detailTitle.subtitle = ""
        }
        // A long name is ellipsized in the narrow detail header: the tooltip shows it whole.
        detailTitle.tooltip = detailTitle.title.isEmpty ? nil : detailTitle.title
    }

    private func resolveRelationNames() {
        let ids = Array(editor.relationButtons.keys)
        guard !ids.isEmpty else { return }
        let content = session.core.content
        Task { @MainActor in
            guard let found = try? await content.search(query: SearchQuery().instanceIds(ids).skipPagination()) else { return }
            self.editor.showRelationNames(
                Dictionary(found.instances.compactMap { i in i.id.map { ($0, i.name) } }, uniquingKeysWith: { a, _ in a }))
        }
    }

    private func reselectEditedInstance() {
        isRestoringSelection = true
        defer { isRestoringSelection = false }
        if let id = editor.instance?.id, let row = pager.loadedRow(ofInstanceId: id) {
            table.columnView.select([row])
        } else {
            table.columnView.select([])
        }
    }

    // MARK: Fields

    private func fields(declaredBy module: Module) -> [FieldDescriptor] {
        (module.fields ?? []).map { field in
            FieldDescriptor(name: field.name, kind: field.fieldType.flatMap { FieldKind(fieldTypeName: $0.name) } ?? .text)
        }
    }

    private func fields(for instance: ContentInstance) -> [FieldDescriptor] {
        let module = sidebar.modules.first { $0.id == instance.moduleId }
        var result = FieldDescriptor.fields(of: instance, module: module?.fields?.isEmpty == false ? module : nil)
        // Fields other instances of the module have, so an empty value can still be filled in.
        for field in knownFields[instance.moduleId] ?? [] where !result.contains(where: { $0.name == field.name }) {
            result.append(field)
        }
        return result
    }

    /// Learns a module's fields from loaded instances when the server did not describe them.
    private func learnFields(from range: Range<Int>) {
        guard let moduleId = pager.moduleId else { return }
        var known = knownFields[moduleId] ?? []
        for row in range.prefix(20) {
            guard let instance = pager.instance(at: row) else { continue }
            for field in FieldDescriptor.fields(of: instance, module: nil) where !known.contains(where: { $0.name == field.name }) {
                known.append(field)
            }
        }
        knownFields[moduleId] = known
    }

    // MARK: Editing

    func newInstance() {
        guard let moduleId = pager.moduleId else { toast("Pick a module first."); return }
        confirmLeavingEdits { [weak self] in
            guard let self else { return }
            self.isRestoringSelection = true
            self.table.columnView.select([])
            self.isRestoringSelection = false
            self.editor.show(ContentInstance(moduleId: moduleId, name: ""), fields: self.knownFields[moduleId] ?? [], isNew: true)
            self.deleteButton.isSensitive = false
            self.detailVisible("editor")
            if self.leaflet.isFolded { self.leaflet.show(self.detailPane) }
            self.editor.nameEntry.grabFocus()
        } onCancel: {
        }
    }

    func save() {
        guard editor.instance != nil else { return }
        let edited: ContentInstance
        do { edited = try editor.editedInstance() } catch { toast(error.description); return }
        let content = session.core.content, isNew = editor.isNew
        saveButton.isSensitive = false
        Task { @MainActor in
            defer { self.completedOperations += 1 }
            do throws(HaloError) {
                let outcome = try await content.saveOrQueue(edited)
                let saved = outcome.instance
                self.connection.record(outcome: outcome)
                if outcome.isPending {
                    self.toast("“\(saved.name)” is saved on this computer and will be sent when the server is reachable.")
                } else {
                    self.toast(isNew ? "Created “\(saved.name)”." : "Saved “\(saved.name)”.")
                }
                if isNew {
                    self.pager.refetch()
                } else if let row = self.pager.replace(saved) {
                    self.table.refresh(row..<(row + 1))
                }
                if self.editor.instance?.id == edited.id { self.editor.markSaved(saved, fields: self.fields(for: saved)) }
                self.deleteButton.isSensitive = true
            } catch {
                self.connection.record(error: error)
                self.saveButton.isSensitive = true
                self.toast("Could not save “\(edited.name)”: \(error.description)")
            }
        }
    }

    /// Deletes the open instance or the selected ones, after asking.
    func deleteSelection() {
        let positions = table.columnView.selectedPositions
        if positions.count > 1 {
            let instances = positions.compactMap(pager.instance(at:))
            ask(
                heading: "Delete \(positions.count) Instances?",
                body: "They are removed from the server for every app. This cannot be undone.",
                confirm: "_Delete", id: "delete"
            ) { [weak self] in
                guard let self else { return }; self.bulkDelete(instances, notLoaded: positions.count - instances.count)
            }
            return
        }
        guard let instance = editor.instance, let id = instance.id else { return }
        ask(
            heading: "Delete “\(instance.name)”?", body: "It is removed from the server for every app. This cannot be undone.",
            confirm: "_Delete", id: "delete"
        ) { [weak self] in
            guard let self else { return }
            let content = self.session.core.content
            Task { @MainActor in
                defer { self.completedOperations += 1 }
                do throws(HaloError) {
                    let outcome = try await content.deleteOrQueue(instanceId: id)
                    self.connection.record(outcome: outcome)
                    self.toast(
                        outcome.isPending
                            ? "“\(instance.name)” will be deleted when the server is reachable."
                            : "Deleted “\(instance.name)”.")
                    self.showDetail(nil)
                    self.pager.refetch()
                } catch {
                    self.connection.record(error: error)
                    self.toast("Could not delete “\(instance.name)”: \(error.description)")
                }
            }
        }
    }

    private func bulkDelete(_ instances: [ContentInstance], notLoaded: Int) {
        var operations = BatchOperations()
        let ids = instances.compactMap(\.id)
        ids.forEach { operations.delete(instanceId: $0) }
        let names = instances.filter { $0.id != nil }.map(\.name)
        runBatch(operations, verb: "deleted", names: names, skipped: Array(repeating: "(row not loaded)", count: notLoaded))
    }

    private func bulkEdit(field: FieldDescriptor, text: String) {
        let value: JSONValue?
        do { value = try FieldValueText.parse(text, kind: field.kind, field: field.name) } catch {
            bulk.showReport(error.description)
            toast(error.description)
            return
        }
        var operations = BatchOperations()
        var names: [String] = [], skipped: [String] = []
        for position in table.columnView.selectedPositions {
            guard var instance = pager.instance(at: position) else { skipped.append("Row \(position + 1)"); continue }
            if let value { instance.values[field.name] = value } else { instance.values.removeValue(forKey: field.name) }
            operations.update(instance)
            names.append(instance.name)
        }
        runBatch(operations, verb: "updated", names: names, skipped: skipped)
    }

    private func runBatch(_ operations: BatchOperations, verb: String, names: [String], skipped: [String]) {
        guard !operations.isEmpty else { bulk.showReport("Nothing to do: the selected rows are not loaded yet."); return }
        let content = session.core.content
        Task { @MainActor in
            defer { self.completedOperations += 1 }
            do throws(HaloError) {
                let result = try await content.batch(operations: operations)
                self.connection.record(success: true)
                let report = BulkReport.text(verb: verb, result: result, names: names, skipped: skipped)
                self.bulk.showReport(report)
                self.toast(report.split(separator: "\n").first.map(String.init) ?? report)
                self.pager.refetch()
            } catch {
                self.connection.record(error: error)
                self.bulk.showReport("Nothing was changed: \(error.description)")
                self.toast("The bulk change failed: \(error.description)")
            }
        }
    }

    // MARK: Pending edits

    /// Opens (or brings back) the Pending Edits window.
    func showPendingEdits() {
        if let window = pendingEditsWindow, window.window.isVisible {
            window.reload()
            window.present()
            return
        }
        do {
            let window = try PendingEditsWindow(workspace: self, parent: widget)
            pendingEditsWindow = window
            window.present()
        } catch {
            toast("Could not open the pending edits: \(error)")
        }
    }

    /// The outbox changed outside a send (a conflict settled, an edit discarded): the status and
    /// the list follow, and the rows show the cache's new truth.
    func pendingEditsChanged() {
        connection.refreshPendingEdits()
        updateStatus()
        pager.refetch()
    }

    func showToast(_ message: String) { toast(message) }

    /// The kinds of a module's fields as far as the workspace knows them (module description or
    /// loaded instances).
    func fieldKinds(moduleId: String) -> [String: FieldKind] {
        Dictionary((knownFields[moduleId] ?? []).map { ($0.name, $0.kind) }, uniquingKeysWith: { first, _ in first })
    }

    /// Sends the outbox (edits made while the server was unreachable), once at a time; the
    /// Pending Edits window, if open, shows the outcome.
    func sendPendingEdits() {
        guard !isSendingPendingEdits else { return }
        isSendingPendingEdits = true
        pendingEditsWindow?.reload()
        let content = session.core.content
        Task { @MainActor in
            defer {
                self.isSendingPendingEdits = false
                self.pendingEditsWindow?.reload()
            }
            do {
                let report = try await content.outbox().flush()
                if let networkError = report.networkError {
                    self.connection.record(error: networkError)
                    return
                }
                self.connection.refreshPendingEdits()
                self.updateStatus()
                var parts: [String] = []
                if !report.sent.isEmpty { parts.append("\(report.sent.count) pending edit\(report.sent.count == 1 ? "" : "s") sent") }
                if !report.conflicts.isEmpty {
                    parts.append("\(report.conflicts.count) in conflict with newer server copies (both kept, see Pending Edits)")
                }
                if !report.failed.isEmpty { parts.append("\(report.failed.count) refused by the server") }
                if !parts.isEmpty { self.toast(parts.joined(separator: ", ") + ".") }
                self.pager.refetch()
            } catch {
                self.connection.record(error: (error as? HaloError) ?? .cache(message: "\(error)"))
            }
        }
    }

    // MARK: Dialogs

    /// For the shell (switching workspace, signing out, closing): asks before dropping edits.
    func confirmLeaving(then proceed: @escaping @MainActor () -> Void) {
        confirmLeavingEdits(proceed, onCancel: {})
    }

    /// Runs `proceed` at once when there are no unsaved edits, otherwise after the user agrees to
    /// discard them (`onCancel` when they keep editing).
    private func confirmLeavingEdits(_ proceed: @escaping @MainActor () -> Void, onCancel: @escaping @MainActor () -> Void) {
        guard editor.isDirty else { proceed(); return }
        let name = editor.instance.map { $0.name.isEmpty ? "the new instance" : "“\($0.name)”" } ?? "this instance"
        ask(
            heading: "Discard Changes?", body: "Your changes to \(name) are not saved.", confirm: "_Discard", id: "discard",
            onCancel: onCancel
        ) { [weak self] in
            guard let self else { return }
            self.editor.clear()
            proceed()
        }
    }

    private func ask(
        heading: String, body: String, confirm: String, id: String,
        onCancel: @escaping @MainActor () -> Void = {}, onConfirm: @escaping @MainActor () -> Void
    ) {
        let dialog = ConfirmationDialog(
            parent: widget, heading: heading, body: body, confirmLabel: confirm, confirmId: id, destructive: true)
        dialog.onResponse { [weak self, weak dialog] response in
            guard let self else { return }
            dialog?.close()
            self.pendingDialog = nil
            if response == id { onConfirm() } else { onCancel() }
        }
        pendingDialog = dialog
        dialog.present()
    }

    private func updateStatus() {
        var parts = [connection.summary]
        if let total = pager.totalItems { parts.append("\(DisplayFormat.count(total)) instance\(total == 1 ? "" : "s")") }
        statusLabel.text = parts.joined(separator: " · ")
        let outbox = connection.outbox
        pendingButton.isVisible = outbox.total > 0
        pendingButton.label = outbox.summary ?? ""
        pendingButton.setAccessibleLabel("Pending edits: " + (outbox.summary ?? "none") + ". Show them")
    }
}
