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
    /// The outbox, shared with the Pending Edits window.
    let pendingEdits: PendingEditsModel
    /// The copies on this computer of the modules opened, for browsing offline.
    let offlineCopies: OfflineCopies
    /// "Keeping Products for offline use: 1,200 of 10,000" and its Cancel, while a sync runs.
    let syncLabel: Label
    let syncCancelButton: Button
    /// "3 edits pending · 1 conflict" beside the status line: opens the Pending Edits window;
    /// hidden when the outbox is empty.
    let pendingButton: Button
    /// The Pending Edits window, once opened.
    private(set) var pendingEditsWindow: PendingEditsWindow?
    /// The pocket window while open (one per workspace).
    var pocketWindow: PocketWindow?
    /// The Send Notification window, once opened.
    var sendNotificationWindow: SendNotificationWindow?
    var moduleSettingsWindow: ModuleSettingsWindow?
    /// The name entry of the New Module dialog while it is open.
    var newModuleNameEntry: Editable?
    let searchEntry: Editable
    let newButton: Button
    /// "Filter", with the number of conditions applied: opens the filter builder.
    let filterButton: Button
    /// The open module's filter builder, once opened (it keeps its draft while hidden).
    var filterBuilder: FilterBuilderWindow?
    /// The filter the list shows (conditions and tags), for the open module.
    var appliedFilter = FilterTree()
    /// The user's saved views (`WorkspaceView+SavedViews.swift`), as last loaded or saved.
    var savedViews = SavedViewList()
    /// Characters of the pocket's `data` in use (nil when views are kept on this computer).
    var pocketUsed: Int?
    /// The saved view the list shows (nil once another module is opened).
    var currentView: SavedView?
    /// Saved-view loads and changes finished, successful or not (tests wait on it).
    var completedViewOperations = 0
    let saveButton: Button
    let deleteButton: Button
    /// The star of the detail header: adds or removes the open instance from Favorites.
    let favoriteButton: Button
    /// The signed-in user's favorite instance ids (`references.favorites` of the pocket), as
    /// last read or saved (`WorkspaceView+Favorites.swift`).
    var favoriteIds: [String] = []
    /// True while a change of the favorites is on its way (the star waits for it).
    var isChangingFavorites = false
    /// Favorites reads and changes finished, successful or not (tests wait on it).
    var completedFavoriteOperations = 0
    /// The instance list, or the empty Favorites page.
    let listStack: Stack
    let statusLabel: Label
    /// The sidebar's header title ("Modules"); its subtitle names the workspace (`showSignedIn`).
    let sidebarTitle: WindowTitle
    /// The detail pane's header title: the open instance (or the size of a multiple selection).
    let detailTitle: WindowTitle
    let primaryMenuButton: Widget
    let listBackButton: Button
    let detailBackButton: Button
    let leaflet: Leaflet
    let detailStack: Stack
    let listPane: Widget
    let detailPane: Widget
    let toast: @MainActor (String) -> Void
    /// The dialog waiting for an answer (delete confirmation, unsaved changes), if any.
    var pendingDialog: ConfirmationDialog?
    /// Finished save/delete/batch requests (tests wait on it).
    var completedOperations = 0
    /// The fields of each module, declared or learned.
    let fieldCatalog = ModuleFieldCatalog()
    var isRestoringSelection = false
    /// The detail page on screen.
    var visibleDetail = DetailPage.empty
    /// Benchmarks (`BenchmarkMarks`): the module opened whose first painted rows are still to mark.
    var firstPaintPending: String?
    /// An instance was shown in the editor (the shell withdraws its desktop notifications).
    var onInstanceShown: (@MainActor (String) -> Void)?

    // Live updates (`WorkspaceView+LiveUpdates.swift`).
    /// Follows the session's content changes while the view is open.
    var liveFollower: Task<Void, Never>?
    /// Changes made elsewhere not applied yet (they are gathered for `liveRefreshDelay`).
    var changedElsewhere: [ContentChange] = []
    /// The server said to resync everything shown.
    /// Instances changed elsewhere whose rows the benchmark waits to see painted (filled only
    /// under `HALO_DESK_MARKS`, Benchmarks/app/measure-live-updates.sh).
    var liveChangesAwaitingPaint: Set<String> = []
    var resyncPending = false
    var isLiveRefreshScheduled = false
    /// When changes made elsewhere were last applied (the next waits out `liveRefreshDelay` from it).
    var lastLiveRefresh: ContinuousClock.Instant?
    /// True while the open instance's save is on its way (its own change event is not someone else's).
    var isSavingOpenInstance = false
    /// The open instance as the server has it now, while the change banner is shown.
    var serverVersion: ContentInstance?
    /// Changes made elsewhere applied to the list and the editor (tests wait on it).
    var liveRefreshes = 0
    let changeBanner: Box
    let changeBannerLabel: Label
    let changeBannerShowButton: Button
    let changeBannerKeepButton: Button

    init(session: WorkspaceSession, toaster: @escaping @MainActor (String) -> Void) throws {
        self.session = session
        toast = toaster
        pager = InstancePager(content: session.core.content, connection: connection)
        pendingEdits = PendingEditsModel(content: session.core.content, connection: connection)
        offlineCopies = OfflineCopies(content: session.core.content)
        let builder = try Builder(ui: "workspace")
        leaflet = try builder.object("leaflet")
        widget = leaflet
        sidebar = ModuleSidebar(list: try builder.object("module_list"))
        table = try InstanceTable(pager: pager, builder: builder)
        editor = try InstanceEditor()
        bulk = try BulkPanel()
        searchEntry = try builder.object("search_entry")
        newButton = try builder.object("new_button")
        filterButton = try builder.object("filter_button")
        saveButton = try builder.object("save_button")
        deleteButton = try builder.object("delete_button")
        favoriteButton = try builder.object("favorite_button")
        listStack = try builder.object("list_stack")
        statusLabel = try builder.object("status_label")
        pendingButton = try builder.object("pending_button")
        syncLabel = try builder.object("sync_label")
        syncCancelButton = try builder.object("sync_cancel_button")
        sidebarTitle = try builder.object("sidebar_title")
        detailTitle = try builder.object("detail_title")
        primaryMenuButton = try builder.object("primary_menu_button")
        listBackButton = try builder.object("list_back_button")
        detailBackButton = try builder.object("detail_back_button")
        detailStack = try builder.object("detail_stack")
        changeBanner = try builder.object("change_banner")
        changeBannerLabel = try builder.object("change_banner_label")
        changeBannerShowButton = try builder.object("change_banner_show_button")
        changeBannerKeepButton = try builder.object("change_banner_keep_button")
        listPane = try builder.object("list_pane")
        detailPane = try builder.object("detail_pane")
        try PrimaryMenu.attach(to: primaryMenuButton)
        detailStack.addPage(editor.widget, named: DetailPage.editor.rawValue)
        detailStack.addPage(bulk.widget, named: DetailPage.bulk.rawValue)
        wireEvents()
        updateDetailTitle()
        // Show the default order (recently updated first) on its column header.
        table.columnView.sort(byKey: SortBy.updatedAt.rawValue, ascending: false)
        updateStatus()
        loadModules()
        followLiveUpdates()
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
        wireSavedViews()
        wireFavorites()
        sidebar.onSelect = weakly(self) { view, module in
            guard module.id != view.pager.moduleId else { return }  // already shown
            view.confirmLeavingEdits {
                view.openModule(module)
            } onCancel: {
                view.reselectSidebar()
            }
        }
        pager.onReset = weakly(self) { view, total in
            view.table.reload(count: total)
            // Rebuilding the rows cleared the selection. An instance open in the editor (one just
            // created, which changed the total) stays open; otherwise the detail follows the selection.
            if view.visibleDetail == .editor, view.editor.instance?.id != nil {
                view.deleteButton.isSensitive = true
            } else {
                view.selectionChanged()
            }
            if let id = view.pager.moduleId, !view.pager.isFiltered { view.sidebar.setCount(total, forModuleId: id) }
            view.favoritesListed(total: total)
            view.updateStatus()
        }
        pager.onRowsLoaded = weakly(self) { view, range in
            // By each instance's module: Favorites lists several.
            let loaded = range.compactMap { view.pager.instance(at: $0) }
            for (moduleId, instances) in Dictionary(grouping: loaded, by: \.moduleId) {
                view.fieldCatalog.learn(from: instances, moduleId: moduleId)
            }
            view.table.refresh(range)
            view.markFirstRowsPainted(loaded: range)
            view.markLiveChangesPainted(loaded: range)
            view.bulk.updateFields(view.fieldCatalog.fields(moduleId: view.pager.moduleId ?? ""))
        }
        pager.onError = weakly(self) { view, message in view.toast(message) }
        connection.onChange = weakly(self) { view in
            view.updateStatus()
            view.pendingEditsWindow?.reload()
        }
        pendingEdits.onMessage = weakly(self) { view, message in view.toast(message) }
        pendingEdits.observe(weakly(self) { $0.updateStatus() })
        // After a send or a settled entry the rows show the cache's new truth.
        pendingEdits.onCopiesChanged = weakly(self) { $0.pager.refetch() }
        pendingEdits.onPocketChanged = weakly(self) { view in
            view.loadFavorites()
            view.pocketWindow?.pocketChangedElsewhere()
        }
        pendingButton.onClicked(weakly(self) { $0.showPendingEdits() })
        connection.onPendingEditsSendable = weakly(self) { $0.pendingEdits.send() }
        connection.refreshPendingEdits()
        table.isUnsent = { [weak self] instance in self?.pendingEdits.isUnsent(instance) ?? false }
        wireOfflineCopies()
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
                view.pager.show(scope: view.pager.scope, sort: sort ?? .recentFirst)
            })
        searchEntry.onSearchChanged(
            weakly(self) { view in view.pager.show(scope: view.pager.scope, nameFilter: view.searchEntry.text) })
        newButton.onClicked(weakly(self) { $0.newInstance() })
        filterButton.onClicked(weakly(self) { $0.showFilterBuilder() })
        saveButton.onClicked(weakly(self) { $0.save() })
        deleteButton.onClicked(weakly(self) { $0.deleteSelection() })
        editor.onDirtyChanged = weakly(self) { view, dirty in view.saveButton.isSensitive = dirty }
        editor.onOpenRelation = weakly(self) { view, id in view.openInstance(id: id) }
        editor.onOpenLink = weakly(self) { view, link in
            URIOpener.open(link, from: nil) { [weak view] reason in
                if let reason { view?.toast("Could not open \(link): \(reason)") }
            }
        }
        editor.instanceSearch = instanceSearch()
        bulk.onApply = weakly(self) { view, field, text in view.bulkEdit(field: field, text: text) }
        bulk.onDelete = weakly(self) { $0.deleteSelection() }
        changeBannerShowButton.onClicked(weakly(self) { $0.showServerChanges() })
        changeBannerKeepButton.onClicked(weakly(self) { $0.keepEditing() })
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
            let window = try PendingEditsWindow(
                model: pendingEdits, parent: widget,
                moduleNames: { [weak self] in self?.sidebar.moduleNames ?? [:] },
                fieldKinds: { [weak self] moduleId in self?.fieldCatalog.kinds(moduleId: moduleId) ?? [:] },
                lookUpNames: { [weak self] ids in await self?.instanceChoices(ids: ids) ?? [:] })
            pendingEditsWindow = window
            window.present()
        } catch {
            toast("Could not open the pending edits: \(error)")
        }
    }

    func showToast(_ message: String) { toast(message) }

    // MARK: Status

    func updateStatus() {
        var parts = [connection.summary]
        if let copySummary { parts.append(copySummary) }
        if let total = pager.totalItems { parts.append("\(DisplayFormat.count(total)) instance\(total == 1 ? "" : "s")") }
        statusLabel.text = parts.joined(separator: " · ")
        // A narrow pane ellipsizes the line: the tooltip has all of it, with the reason.
        statusLabel.tooltip = ([connection.explanation] + parts.dropFirst()).joined(separator: " · ")
        let outbox = connection.outbox
        pendingButton.isVisible = outbox.total > 0
        pendingButton.label = outbox.summary ?? ""
        pendingButton.setAccessibleLabel("Pending edits: " + (outbox.summary ?? "none") + ". Show them")
    }
}
