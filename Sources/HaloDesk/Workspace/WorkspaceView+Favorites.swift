import Foundation
import HaloServices

/// Favorites: the signed-in user's starred instances, the id list `references.favorites` of the
/// pocket (PROTOCOL §8), so they follow the user. The star in the detail header (Ctrl+Shift+D)
/// adds or removes the open instance; Favorites in the sidebar lists them across modules.
///
/// A change reads the pocket and saves it with `If-Match`; when another computer saved in
/// between, it is redone on that pocket (adding or removing one id commutes: nobody is asked).
/// Offline it waits in the outbox with the other pending edits, on the pocket as shown here.
extension WorkspaceView {
    nonisolated static let favoritesList = "favorites"

    /// Favorites live in an identified user's pocket.
    var canKeepFavorites: Bool { session.core.auth.currentUser != nil }

    func wireFavorites() {
        favoriteButton.onClicked(weakly(self) { $0.toggleFavorite() })
        table.moduleName = { [weak self] id in self?.sidebar.moduleNames[id] }
        sidebar.onSelectFavorites = weakly(self) { view in
            view.confirmLeavingEdits {
                view.showFavorites()
            } onCancel: {
                view.reselectSidebar()
            }
        }
    }

    /// Reads the favorites (with the modules: at start, on Refresh, on reconnection); offline
    /// from the copy of the pocket, with a save still waiting laid over it.
    func loadFavorites() {
        sidebar.show(favorites: canKeepFavorites)
        guard canKeepFavorites else { return }
        let auth = session.core.auth
        Task { @MainActor in
            defer { self.completedFavoriteOperations += 1 }
            do throws(HaloError) {
                self.showFavoriteIds(in: try await auth.getPocketWithPendingSave().pocket)
            } catch {
                // Offline with no copy of the pocket yet: the status line already says offline.
                if case .network = error { return }
                self.toast("Your favorites could not be read: \(error.sentence)")
            }
        }
    }

    /// Lists the favorites in the instance table (the list follows later changes).
    func showFavorites() {
        showDetail(nil)
        forgetFilter()  // filters are per module
        pager.show(
            scope: .instances(favoriteIds), nameFilter: searchEntry.text, filters: SearchFilters(), segment: InstancePager.Segment())
        sidebar.selectFavorites()
        leaflet.show(listPane)
    }

    /// Highlights in the sidebar what the list shows (after a change of list was cancelled).
    func reselectSidebar() {
        if pager.showsInstances {
            sidebar.selectFavorites()
        } else if let id = pager.moduleId {
            sidebar.select(moduleId: id)
        }
    }

    /// The list was rebuilt with `total` rows: Favorites' count, its empty page, and what the
    /// header's buttons can do (a new instance and a filter need one module).
    func favoritesListed(total: Int) {
        let listsFavorites = pager.showsInstances
        if listsFavorites, !pager.isFiltered { sidebar.setFavoritesCount(total) }
        listStack.visiblePage = listsFavorites && total == 0 && !pager.isFiltered ? "no_favorites" : "list"
        table.showModules(listsFavorites)
        guard newButton.isSensitive == listsFavorites else { return }  // a tooltip set costs an X round trip
        newButton.isSensitive = !listsFavorites
        filterButton.isSensitive = !listsFavorites
        newButton.tooltip = listsFavorites ? "Open a module to create an instance in it" : "New Instance (Ctrl+N)"
        filterButton.tooltip =
            listsFavorites ? "Open a module to filter its instances" : "Filter by any field, metadata or tag (Ctrl+Shift+F)"
    }

    /// The open instance's id when it can be starred: one saved on the server (not new, not a
    /// creation still waiting to be sent).
    var favoriteTarget: String? {
        guard visibleDetail == .editor, !editor.isNew, let id = editor.instance?.id, !Outbox.isLocalId(id) else { return nil }
        return id
    }

    /// The star: shown for an instance that can be starred, filled when it is a favorite.
    func updateFavoriteButton() {
        guard let id = favoriteTarget else {
            favoriteButton.isVisible = false
            return
        }
        let starred = favoriteIds.contains(id)
        let action = starred ? "Remove from Favorites" : "Add to Favorites"
        favoriteButton.iconName = starred ? "starred-symbolic" : "non-starred-symbolic"
        favoriteButton.setAccessibleLabel(action)
        favoriteButton.isSensitive = canKeepFavorites && !isChangingFavorites
        favoriteButton.tooltip =
            canKeepFavorites ? "\(action) (Ctrl+Shift+D)" : "Favorites are kept in a user’s pocket: sign in as a user to keep them"
        favoriteButton.isVisible = true
    }

    /// Stars or unstars the open instance.
    func toggleFavorite() {
        guard let id = favoriteTarget, !isChangingFavorites else { return }
        guard canKeepFavorites else {
            toast("Favorites are kept in a user’s pocket: sign in as a user to keep them.")
            return
        }
        let adding = !favoriteIds.contains(id)
        let name = editor.instance.map { $0.name.isEmpty ? "This instance" : "“\($0.name)”" } ?? "This instance"
        let auth = session.core.auth
        isChangingFavorites = true
        updateFavoriteButton()
        Task { @MainActor in
            defer {
                self.isChangingFavorites = false
                self.updateFavoriteButton()
                self.completedFavoriteOperations += 1
            }
            do {
                let outcome = try await auth.changePocket(queueWhenUnreachable: true) { pocket in
                    Self.favoritesSave(of: pocket, id: id, adding: adding)
                }
                self.connection.record(pocketOutcome: outcome)
                self.showFavoriteIds(in: outcome.pocket)
                self.pocketWindow?.pocketChangedElsewhere()
                if case .pending(_, let entry) = outcome {
                    let change = adding ? "added to" : "removed from"
                    self.toast(
                        entry.state == .pending
                            ? "\(name) is \(change) Favorites on this computer and will be sent when the server is reachable."
                            : "\(name) is \(change) Favorites on this computer; it waits behind changes to settle in Pending Edits.")
                }
            } catch {
                if let error = error as? HaloError { self.connection.record(error: error) }
                let reason = (error as? HaloError)?.sentence ?? "\(error)"
                self.toast(adding ? "Could not add \(name) to Favorites: \(reason)" : "Could not remove \(name) from Favorites: \(reason)")
            }
        }
    }

    /// The save that adds `id` to the favorites of `pocket` or removes it. `data` goes back as
    /// read: a save replaces it whole.
    nonisolated static func favoritesSave(of pocket: Pocket, id: String, adding: Bool) -> Pocket {
        var list = pocket.references[favoritesList] ?? []
        if adding {
            if !list.contains(id) { list.append(id) }
        } else {
            list.removeAll { $0 == id }
        }
        let save = Pocket()
        save.setData(pocket.data)
        save.setReferences(key: favoritesList, values: list)
        return save
    }

    /// The favorites of `pocket` become the star's and the list's.
    func showFavoriteIds(in pocket: Pocket) {
        let ids = pocket.references[Self.favoritesList] ?? []
        let changed = ids != favoriteIds
        favoriteIds = ids
        updateFavoriteButton()
        if pager.showsInstances {
            if changed { pager.show(scope: .instances(ids)) }
        } else {
            countFavorites()
        }
    }

    /// The sidebar's count of favorites: the ids that are instances (deleted ones are not listed).
    private func countFavorites() {
        guard !favoriteIds.isEmpty else {
            sidebar.setFavoritesCount(0)
            return
        }
        let query = SearchQuery().instanceIds(favoriteIds).pagination(page: 1, limit: 1)
        let content = session.core.content, policy = connection.readPolicy
        Task { @MainActor in
            if let result = try? await content.search(query: query, offlinePolicy: policy) {
                self.sidebar.setFavoritesCount(result.paginationInfo.totalItems)
            }
        }
    }
}
