import HaloServices

/// Editing: new, save and delete of one instance; bulk edit and delete of a selection.
extension WorkspaceView {
    // MARK: Editing

    func newInstance() {
        guard let moduleId = pager.moduleId else { toast("Pick a module first."); return }
        confirmLeavingEdits { [weak self] in
            guard let self else { return }
            self.isRestoringSelection = true
            self.table.columnView.select([])
            self.isRestoringSelection = false
            self.editor.show(
                ContentInstance(moduleId: moduleId, name: ""), fields: self.fieldCatalog.fields(moduleId: moduleId), isNew: true)
            self.deleteButton.isSensitive = false
            self.detailVisible(.editor)
            if self.leaflet.isFolded { self.leaflet.show(self.detailPane) }
            self.editor.nameEntry.grabFocus()
        } onCancel: {
        }
    }

    func save() {
        guard editor.instance != nil else { return }
        let edited: ContentInstance
        do { edited = try editor.editedInstance() } catch {
            editor.showProblem(error)
            toast(error.description)
            return
        }
        let content = session.core.content, isNew = editor.isNew
        saveButton.isSensitive = false
        isSavingOpenInstance = true
        Task { @MainActor in
            defer {
                self.isSavingOpenInstance = false
                self.completedOperations += 1
            }
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
                if self.editor.instance?.id == edited.id {
                    self.hideChangeBanner()  // saved over the other version, as the user chose
                    self.editor.markSaved(saved, fields: self.fields(for: saved))
                }
                self.deleteButton.isSensitive = true
                if !outcome.isPending { self.keepOfflineCopy() }
            } catch {
                self.connection.record(error: error)
                self.saveButton.isSensitive = true
                // A refused value is said under its field too, where it can be corrected.
                if let problem = error.fieldProblem, self.editor.instance?.id == edited.id { self.editor.showProblem(problem) }
                self.toast("Could not save “\(edited.name)”: \(error.sentence)")
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
                    if !outcome.isPending { self.keepOfflineCopy() }
                } catch {
                    self.connection.record(error: error)
                    self.toast("Could not delete “\(instance.name)”: \(error.sentence)")
                }
            }
        }
    }

    func bulkDelete(_ instances: [ContentInstance], notLoaded: Int) {
        var operations = BatchOperations()
        let ids = instances.compactMap(\.id)
        ids.forEach { operations.delete(instanceId: $0) }
        let names = instances.filter { $0.id != nil }.map(\.name)
        runBatch(operations, verb: "deleted", names: names, skipped: Array(repeating: "(row not loaded)", count: notLoaded))
    }

    func bulkEdit(field: FieldDescriptor, text: String) {
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

    func runBatch(_ operations: BatchOperations, verb: String, names: [String], skipped: [String]) {
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
                self.keepOfflineCopy()
            } catch {
                self.connection.record(error: error)
                self.bulk.showReport("Nothing was changed: \(error.sentence)")
                self.toast("The bulk change failed: \(error.sentence)")
            }
        }
    }
}
