import CAdw
import CGtk
import HaloServices

/// Browsing: the module list, opening modules and instances, what the detail pane shows.
extension WorkspaceView {
    // MARK: Browsing

    /// Reads the modules (and their fields) again; `then` runs once they are shown.
    func loadModules(then: (@MainActor () -> Void)? = nil) {
        let content = session.core.content
        Task { @MainActor in
            do throws(HaloError) {
                let answer = try await content.getModules(withFields: true)
                let modules = answer.modules.sorted { ($0.name ?? "") < ($1.name ?? "") }
                self.connection.record(answerFrom: answer.source)
                for module in modules where module.fields?.isEmpty == false {
                    self.fieldCatalog.declare(module)
                }
                self.sidebar.show(modules)
                then?()
                self.loadSavedViews()
                self.loadFavorites()
                if self.pager.showsInstances {
                    self.sidebar.selectFavorites()
                } else if let first = modules.first(where: { $0.id == self.pager.moduleId }) ?? modules.first, let id = first.id {
                    self.sidebar.select(moduleId: id)
                    if self.pager.moduleId != id { self.openModule(first) }
                }
                await self.loadCounts(modules)
            } catch {
                self.connection.record(error: error)
                self.toast("Could not load the modules: \(error.sentence)")
            }
        }
    }

    func loadCounts(_ modules: [Module]) async {
        for module in modules {
            guard let id = module.id else { continue }
            let query = SearchQuery().moduleIds([id]).pagination(page: 1, limit: 1)
            if let result = try? await session.core.content.search(query: query, offlinePolicy: connection.readPolicy) {
                sidebar.setCount(result.paginationInfo.totalItems, forModuleId: id)
            }
        }
    }

    /// Shows a module: unfiltered, or (a saved view) with `filter` and `sort` from its first request.
    func openModule(_ module: Module, filter: FilterTree = FilterTree(), sort: InstancePager.Sort? = nil) {
        if BenchmarkMarks.isEnabled {
            let name = module.name ?? module.id ?? "?"
            BenchmarkMarks.mark("open \(name)")
            firstPaintPending = name
        }
        showDetail(nil)
        forgetFilter()  // filters are per module
        applyFilter(filter, sort: sort, moduleId: module.id)
        leaflet.show(listPane)
        keepOfflineCopy()
    }

    /// Benchmarks: marks the first frame painted with the opened module's first rows.
    func markFirstRowsPainted(loaded range: Range<Int>) {
        guard let name = firstPaintPending, range.contains(0), pager.instance(at: 0) != nil else { return }
        firstPaintPending = nil
        BenchmarkMarks.markNextPaint(of: table.columnView, "painted \(name)")
    }

    /// The instance `id` as the server (or, by the session's policy, the offline copy) has it now;
    /// nil when it does not exist.
    func fetchInstance(id: String) async throws(HaloError) -> ContentInstance? {
        try await session.core.content.search(query: SearchQuery().instanceIds([id]).skipPagination()).instances.first
    }

    /// Opens an instance by id (relation links): switches to its module and shows it.
    func openInstance(id: String) {
        confirmLeavingEdits { [weak self] in
            guard let self else { return }
            Task { @MainActor in
                do throws(HaloError) {
                    guard let instance = try await self.fetchInstance(id: id) else {
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
                    self.toast("Could not open the related instance: \(error.sentence)")
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

    func selectionChanged() {
        guard !isRestoringSelection, !table.isRestoringSelection else { return }
        let positions = table.columnView.selectedPositions
        deleteButton.isSensitive = !positions.isEmpty
        if positions.count > 1 {
            confirmLeavingEdits { [weak self] in
                guard let self else { return }
                self.detailVisible(.bulk)
                if !self.leaflet.isFolded { self.leaflet.showKeepingFocus(self.detailPane) }
                self.editor.clear()
                self.bulk.show(fields: self.fieldCatalog.fields(moduleId: self.pager.moduleId ?? ""))
            } onCancel: { [weak self] in
                self?.reselectEditedInstance()
            }
            return
        }
        guard let position = positions.first, let instance = pager.instance(at: position) else {
            // Nothing selected: keep a new or edited instance, or the report of a bulk change, on
            // screen; else show the empty page.
            let showsBulkReport = visibleDetail == .bulk && !bulk.report.text.isEmpty
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

    func showDetail(_ instance: ContentInstance?) {
        guard let instance else {
            hideChangeBanner()
            editor.clear()
            detailVisible(.empty)
            return
        }
        hideChangeBanner()
        editor.show(instance, fields: fields(for: instance), isNew: instance.id == nil)
        deleteButton.isSensitive = instance.id != nil
        if let id = instance.id { onInstanceShown?(id) }
        detailVisible(.editor)
        // Unfolded, this only decides which pane a later fold shows; folded, a selection by
        // keyboard stays in the list until the row is activated.
        if !leaflet.isFolded { leaflet.showKeepingFocus(detailPane) }
        resolveRelationNames()
    }

    /// The pages of the detail pane (their names in `workspace.ui`).
    enum DetailPage: String {
        /// Nothing selected.
        case empty
        /// One instance in the editor.
        case editor
        /// Several selected: the bulk panel.
        case bulk
    }

    func detailVisible(_ page: DetailPage) {
        visibleDetail = page
        detailStack.visiblePage = page.rawValue
        updateDetailTitle()
    }

    /// The detail header names what the pane shows (the instance, or how many are selected);
    /// Save only makes sense for one instance.
    func updateDetailTitle() {
        saveButton.isVisible = visibleDetail == .editor
        updateFavoriteButton()
        switch visibleDetail {
        case .editor:
            detailTitle.title = editor.headerTitle
            detailTitle.subtitle = editor.headerSubtitle
        case .bulk:
            let count = table.columnView.selectedPositions.count
            detailTitle.title = "\(count) Selected"
            detailTitle.subtitle = pager.moduleId.flatMap { id in sidebar.modules.first { $0.id == id }?.name } ?? ""
        case .empty:
            detailTitle.title = ""
            detailTitle.subtitle = ""
        }
        // A long name is ellipsized in the narrow detail header: the tooltip shows it whole.
        detailTitle.tooltip = detailTitle.title.isEmpty ? nil : detailTitle.title
    }

    func resolveRelationNames() {
        let ids = Array(editor.relationButtons.keys)
        guard !ids.isEmpty else { return }
        Task { @MainActor in
            let found = await self.instanceChoices(ids: ids)
            guard !found.isEmpty else { return }
            self.editor.showRelationNames(found.mapValues(\.name))
        }
    }

    func reselectEditedInstance() {
        isRestoringSelection = true
        defer { isRestoringSelection = false }
        if let id = editor.instance?.id, let row = pager.loadedRow(ofInstanceId: id) {
            table.columnView.select([row])
        } else {
            table.columnView.select([])
        }
    }

    // MARK: Fields

    func fields(for instance: ContentInstance) -> [FieldDescriptor] {
        fieldCatalog.fields(for: instance, module: sidebar.modules.first { $0.id == instance.moduleId })
    }
}
