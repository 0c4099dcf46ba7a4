import CGtk

/// The builder's Saved View section: save the filter as a new view, or into the view the draft
/// was opened from. The workspace does the storing (`WorkspaceView+SavedViews.swift`) and tells
/// the builder where views are kept, how much room is left, and what went wrong.
extension FilterBuilderWindow {
    func wireViewEvents() {
        saveViewRow.onAdd(
            saveViewRow.addButton(
                iconName: "document-save-symbolic", accessibleLabel: "Save as a new view", tooltip: "Save the filter as a new view"),
            weakly(self) { $0.saveAsNewView() })
        updateViewButton.onClicked(
            weakly(self) { builder in
                guard let view = builder.openedView, (try? builder.tree.applicable()) != nil else { return }
                builder.onUpdateView?(view, builder.tree)
            })
    }

    /// Saves the tree under the name typed (the entry's apply button or Enter).
    func saveAsNewView() {
        let name = saveViewRow.asEditable.text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else {
            showViewProblem("Type a name for the view.")
            return
        }
        guard (try? tree.applicable()) != nil else {
            showViewProblem("Complete or remove the marked conditions before saving the view.")
            return
        }
        onSaveView?(name, tree)
    }

    /// Where views are kept and how much room is left, said under the section's title.
    func showViewStorage(_ description: String) { viewsGroup.groupDescription = description }

    /// The reason a save failed (nil hides it).
    func showViewProblem(_ message: String?) {
        viewProblemLabel.text = message ?? ""
        viewProblemLabel.isVisible = message != nil
    }

    /// The draft now belongs to `view` (just saved, or opened from the sidebar).
    func viewSaved(_ view: SavedView?) {
        openedView = view
        showViewProblem(nil)
        if view != nil { saveViewRow.asEditable.text = "" }
        viewsChanged(isApplicable: (try? tree.applicable()) != nil)
    }

    /// Saving needs a filter that can be applied; the update row names the view it writes to.
    func viewsChanged(isApplicable: Bool) {
        saveViewRow.isSensitive = isApplicable
        updateViewRow.isVisible = openedView != nil
        if let openedView {
            updateViewRow.title = "Update “\(openedView.name)”"
            updateViewRow.subtitle = "Replace its filter, tags and sort with these"
            updateViewButton.setAccessibleLabel("Update the view “\(openedView.name)”")
        }
        updateViewButton.isSensitive = isApplicable
    }
}
