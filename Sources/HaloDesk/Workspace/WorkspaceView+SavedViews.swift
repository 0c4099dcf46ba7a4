import Foundation
import HaloServices

/// Saved views: listed under their module in the sidebar, opened from there, saved and updated
/// from the filter builder, renamed and deleted from their row's menu. They live in the signed-in
/// user's pocket (`PocketViewStore`), so they follow the user; without an identified user, in a
/// file on this computer (`LocalViewStore`), and the builder says so.
extension WorkspaceView {
    /// Where this session's views are kept.
    var viewStore: any SavedViewStore {
        if session.core.auth.currentUser != nil { return PocketViewStore(auth: session.core.auth) }
        return LocalViewStore(baseURL: session.core.environment.baseURL, directory: session.core.configuration.dataDirectory)
    }

    func wireSavedViews() {
        sidebar.onSelectView = weakly(self) { view, savedView in
            view.confirmLeavingEdits {
                view.openSavedView(savedView)
            } onCancel: {
                view.reselectSidebar()
            }
        }
        sidebar.onRenameView = weakly(self) { view, savedView, name in view.renameView(savedView, to: name) }
        sidebar.onDeleteView = weakly(self) { view, savedView in view.confirmDeletingView(savedView) }
    }

    /// Reads the views again (with the modules: at start and on Refresh). Offline, the pocket comes
    /// from the copy on this computer; when there is none, the views shown stay as they were.
    func loadSavedViews() {
        let store = viewStore
        Task { @MainActor in
            defer { self.completedViewOperations += 1 }
            do {
                let (views, used) = try await store.load()
                self.showSavedViews(views, pocketUsed: used)
            } catch HaloError.network {
                // Offline with no copy of the pocket yet: the status line already says offline.
            } catch {
                self.toast("Your saved views could not be read: \((error as? HaloError)?.sentence ?? "\(error)")")
            }
        }
    }

    private func showSavedViews(_ views: SavedViewList, pocketUsed: Int?) {
        savedViews = views
        self.pocketUsed = pocketUsed
        sidebar.show(views: views.views)
        if let currentView, !views.views.contains(where: { $0.id == currentView.id }) {
            self.currentView = nil  // deleted elsewhere: the list keeps its filter, unnamed
            filterBuilder?.viewSaved(nil)
        }
        filterBuilder.map(describeViewStorage)
    }

    /// Shows the view's module with its filter, tags and sort. A view naming fields the module
    /// no longer has opens in the builder with those conditions marked (nothing is dropped).
    func openSavedView(_ savedView: SavedView) {
        guard let module = sidebar.modules.first(where: { $0.id == savedView.moduleId }) else {
            toast("The module of the view “\(savedView.name)” no longer exists.")
            return
        }
        let tree = savedView.tree(fields: filterFields(of: module))
        let applicable = tree.flatMap { try? $0.applicable() } != nil
        // The module's first request already carries the view's filter and sort.
        let shown = applicable ? tree ?? FilterTree() : FilterTree()
        if pager.moduleId != savedView.moduleId {
            openModule(module, filter: shown, sort: savedView.sort)
        } else {
            forgetFilter()
            applyFilter(shown, sort: savedView.sort)
        }
        // After the pager has the sort: the header follows without asking again.
        table.columnView.sort(byKey: savedView.sort.field.rawValue, ascending: savedView.sort.order == .ascending)
        sidebar.select(viewId: savedView.id)
        guard let tree else {
            toast("The filter of the view “\(savedView.name)” cannot be read by this version of HaloDesk.")
            return
        }
        currentView = savedView
        if !applicable {
            showFilterBuilder(draft: tree)
            toast("Some conditions of “\(savedView.name)” cannot be applied; they are marked in the filter builder.")
        }
    }

    // MARK: Changes

    func attachSavedViews(to builder: FilterBuilderWindow) {
        builder.onSaveView = weakly(self) { view, name, tree in view.saveView(named: name, tree: tree) }
        builder.onUpdateView = weakly(self) { view, savedView, tree in view.updateView(savedView, with: tree) }
        builder.viewSaved(currentView)
        describeViewStorage(in: builder)
    }

    /// Where views are kept, and the pocket's room left, under the builder's Saved View title.
    func describeViewStorage(in builder: FilterBuilderWindow) {
        guard viewStore.followsUser else {
            builder.showViewStorage("You are not signed in as a user: views are kept on this computer only.")
            return
        }
        let limit = Pocket.dataCharacterLimit
        let room = pocketUsed.map { "\(DisplayFormat.count(max(limit - $0, 0))) of \(DisplayFormat.count(limit)) characters left" }
        builder.showViewStorage(
            "Views are kept in your account’s pocket and follow you to any computer" + (room.map { ": \($0)." } ?? "."))
    }

    func saveView(named name: String, tree: FilterTree) {
        guard let moduleId = pager.moduleId else { return }
        let newView: SavedView
        do { newView = try SavedView(moduleId: moduleId, name: name, tree: tree, sort: pager.sort) } catch {
            filterBuilder?.showViewProblem((error as? HaloError)?.sentence ?? "\(error)")
            return
        }
        changeViews(failing: "The view was not saved") { views in
            if views.views(ofModule: moduleId).contains(where: { $0.name == name }) { throw SavedViewsError.nameTaken(name: name) }
            views.add(newView)
        } then: { view in
            view.currentView = newView
            view.sidebar.select(viewId: newView.id)
            view.filterBuilder?.viewSaved(newView)
            view.toast("View “\(name)” saved")
        }
    }

    func updateView(_ savedView: SavedView, with tree: FilterTree) {
        var edited = savedView
        do { try edited.take(tree) } catch {
            filterBuilder?.showViewProblem((error as? HaloError)?.sentence ?? "\(error)")
            return
        }
        edited.sort = pager.sort
        let updated = edited
        changeViews(failing: "The view was not updated") { views in
            guard views.replace(updated) else { throw SavedViewsError.viewGone(name: savedView.name) }
        } then: { view in
            view.currentView = updated
            view.filterBuilder?.viewSaved(updated)
            view.toast("View “\(updated.name)” updated")
        }
    }

    func renameView(_ savedView: SavedView, to name: String) {
        var edited = savedView
        edited.name = name
        let renamed = edited
        changeViews(failing: "The view was not renamed") { views in
            if views.views(ofModule: savedView.moduleId).contains(where: { $0.name == name && $0.id != savedView.id }) {
                throw SavedViewsError.nameTaken(name: name)
            }
            guard views.replace(renamed) else { throw SavedViewsError.viewGone(name: savedView.name) }
        } then: { view in
            if view.currentView?.id == renamed.id {
                view.currentView = renamed
                view.filterBuilder?.viewSaved(renamed)
            }
            view.toast("View renamed to “\(name)”")
        }
    }

    /// Deleting a view removes it from every computer the user signs in on: asked first.
    func confirmDeletingView(_ savedView: SavedView) {
        let place = viewStore.followsUser ? "from every computer you sign in on" : "from this computer"
        ask(
            heading: "Delete View?", body: "“\(savedView.name)” will be removed \(place). No instance is changed.",
            confirm: "_Delete", id: "delete-view"
        ) { [weak self] in
            self?.deleteView(savedView)
        }
    }

    func deleteView(_ savedView: SavedView) {
        changeViews(failing: "The view was not deleted") { views in
            views.remove(id: savedView.id)
        } then: { view in
            view.toast("View “\(savedView.name)” deleted")
        }
    }

    /// Runs one change of the stored views; on success shows the views as saved and runs `then`,
    /// else says why in the builder when it is open (next to what the user did), else in a toast.
    private func changeViews(
        failing failure: String, _ change: @escaping @Sendable (inout SavedViewList) throws -> Void,
        then: @escaping @MainActor (WorkspaceView) -> Void
    ) {
        let store = viewStore
        filterBuilder?.showViewProblem(nil)
        Task { @MainActor in
            defer { self.completedViewOperations += 1 }
            do {
                let (views, used) = try await store.change(change)
                self.showSavedViews(views, pocketUsed: used)
                then(self)
            } catch {
                let reason = (error as? HaloError)?.sentence ?? "\(error)"
                if let builder = self.filterBuilder, builder.window.isVisible {
                    builder.showViewProblem("\(failure): \(reason)")
                } else {
                    self.toast("\(failure): \(reason)")
                }
            }
        }
    }
}
