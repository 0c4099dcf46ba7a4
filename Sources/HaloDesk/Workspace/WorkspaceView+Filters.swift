import HaloServices

/// Filtering the list: the filter builder of the open module (the Filter button, Ctrl+Shift+F),
/// what Apply shows, and the instance search behind the relation pickers.
extension WorkspaceView {
    /// Opens the builder on the applied filter, or on `draft` (a saved view that cannot be
    /// applied as it is: its problems are marked there).
    func showFilterBuilder(draft: FilterTree? = nil) {
        BenchmarkMarks.mark("filter-builder open")
        guard let moduleId = pager.moduleId, let module = sidebar.modules.first(where: { $0.id == moduleId }) else {
            toast("Choose a module to filter.")
            return
        }
        if let filterBuilder, draft == nil {
            BenchmarkMarks.markNextPaint(of: filterBuilder.window, "filter-builder painted")
            filterBuilder.present()
            return
        }
        filterBuilder?.window.destroy()
        let fields = filterFields(of: module)
        let content = session.core.content
        let connection = connection
        do {
            let builder = try FilterBuilderWindow(
                moduleName: module.name ?? "Module", fields: fields, tree: draft ?? appliedFilter,
                baseQuery: SearchQuery().moduleIds([moduleId]).addSortBy(field: pager.sort.field, order: pager.sort.order),
                parent: widget,
                search: { query throws(HaloError) in
                    let policy = connection.readPolicy
                    do throws(HaloError) {
                        let answer = try await content.search(query: query, offlinePolicy: policy)
                        if policy == nil { connection.record(answerFrom: answer.source) }
                        return answer
                    } catch {
                        connection.record(error: error)
                        throw error
                    }
                },
                instanceSearch: instanceSearch(), onApply: weakly(self) { $0.applyFilter($1) })
            filterBuilder = builder
            attachSavedViews(to: builder)
            BenchmarkMarks.markNextPaint(of: builder.window, "filter-builder painted")
            builder.present()
        } catch {
            toast("Could not open the filter builder: \(error)")
        }
    }

    /// Shows `tree` in the list of the open module, or of `moduleId` (the name box is kept; the
    /// sort too, unless given).
    func applyFilter(_ tree: FilterTree, sort: InstancePager.Sort? = nil, moduleId: String? = nil) {
        guard let (filters, segment) = try? tree.applicable() else { return }
        appliedFilter = tree
        pager.show(
            scope: moduleId.map(InstancePager.Scope.module) ?? pager.scope, nameFilter: searchEntry.text, filters: filters,
            segment: segment, sort: sort)
        updateFilterButton()
    }

    /// What the module's conditions can be on: its fields (declared or seen) and the metadata.
    func filterFields(of module: Module) -> [FilterField] {
        FilterField.fields(declared: module.fields, seen: module.id.map { fieldCatalog.fields(moduleId: $0) } ?? [])
    }

    /// Another module: its list starts unfiltered and the builder of the previous one goes.
    func forgetFilter() {
        appliedFilter = FilterTree()
        currentView = nil
        filterBuilder?.window.destroy()
        filterBuilder = nil
        updateFilterButton()
    }

    /// "Filter" names how many conditions and tags the list is filtered by.
    func updateFilterButton() {
        let count = appliedFilter.conditionCount
        filterButton.label = count == 0 ? "Filter" : "Filter · \(count)"
        filterButton.setAccessibleLabel(count == 0 ? "Filter" : "Filter: \(count) condition\(count == 1 ? "" : "s") applied")
        if count == 0 { filterButton.removeCSSClass("accent") } else { filterButton.addCSSClass("accent") }
    }

    /// Instances by name for the relation pickers, in every module (a relation field does not
    /// say which module it points to): the recently updated ones for an empty text.
    func instanceSearch() -> InstanceSearch {
        let content = session.core.content
        let connection = connection
        return { [weak self] text in
            var query = SearchQuery().pagination(page: 1, limit: 20)
            if text.isEmpty {
                query = query.addSortBy(field: .updatedAt, order: .descending)
            } else {
                query = query.metaFilter(like(property: "name", value: text)).addSortBy(field: .name, order: .ascending)
            }
            guard let answer = try? await content.search(query: query, offlinePolicy: connection.readPolicy) else { return [] }
            let modules = self?.sidebar.moduleNames ?? [:]
            return answer.instances.compactMap { InstanceChoice($0, moduleNames: modules) }
        }
    }
}
