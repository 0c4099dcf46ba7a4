import HaloServices

/// Questions before destroying data: discarding unsaved edits, deleting.
extension WorkspaceView {
    // MARK: Dialogs

    /// For the shell (switching workspace, signing out, closing): asks before dropping edits.
    func confirmLeaving(then proceed: @escaping @MainActor () -> Void) {
        confirmLeavingEdits(proceed, onCancel: {})
    }

    /// Runs `proceed` at once when there are no unsaved edits, otherwise after the user agrees to
    /// discard them (`onCancel` when they keep editing).
    func confirmLeavingEdits(_ proceed: @escaping @MainActor () -> Void, onCancel: @escaping @MainActor () -> Void) {
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

    func ask(
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
}
