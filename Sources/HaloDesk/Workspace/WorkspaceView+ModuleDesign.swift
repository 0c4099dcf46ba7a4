import CAdw
import CGtk
import HaloServices

/// Module design from the workspace: New Module (the sidebar's + button, or the main menu) asks
/// for a name, creates the module and opens its settings; Module Settings opens for the module
/// shown. Changes made there, or elsewhere (live events), make the sidebar read the modules again.
extension WorkspaceView {
    /// Module Settings for the module the list shows.
    func showModuleSettings() {
        guard let id = pager.moduleId, let module = sidebar.modules.first(where: { $0.id == id }) else {
            toast("Pick a module in the sidebar first.")
            return
        }
        showModuleSettings(module)
    }

    func showModuleSettings(_ module: Module) {
        if let moduleSettingsWindow, moduleSettingsWindow.window.isVisible, moduleSettingsWindow.module.id == module.id {
            moduleSettingsWindow.present()
            return
        }
        do {
            let window = try ModuleSettingsWindow(parent: widget, core: session.core, module: module) { [weak self] _ in
                self?.loadModules()
            }
            moduleSettingsWindow = window
            window.present()
        } catch {
            toast("Could not open the module settings: \(error)")
        }
    }

    /// Asks for the new module's name; creates it and opens its settings to add fields.
    func newModule() {
        let entry = Editable.entry(accessibleLabel: "Module name", placeholder: "Name, e.g. Recipes")
        let dialog = ConfirmationDialog(
            parent: widget, heading: "New Module", body: "A module holds instances of one kind. Add its fields next.",
            confirmLabel: "_Create", confirmId: "create", destructive: false)
        dialog.suggest("create")
        dialog.setResponse("create", enabled: false)
        dialog.setExtraChild(entry)
        entry.onChanged { [weak dialog] in
            dialog?.setResponse("create", enabled: !entry.text.trimmingCharacters(in: .whitespaces).isEmpty)
        }
        gtk_entry_set_activates_default(entry.raw.assumingMemoryBound(to: GtkEntry.self), 1)
        let core = session.core
        dialog.onResponse { [weak self] response in
            guard let self else { return }
            self.pendingDialog = nil
            self.newModuleNameEntry = nil
            let name = entry.text.trimmingCharacters(in: .whitespaces)
            guard response == "create", !name.isEmpty else { return }
            Task { @MainActor in
                do throws(HaloError) {
                    let module = try await core.content.createModule(name: name)
                    self.loadModules()
                    self.showModuleSettings(module)
                } catch {
                    self.toast("Could not create “\(name)”: \(error.sentence)")
                }
            }
        }
        pendingDialog = dialog
        newModuleNameEntry = entry
        dialog.present()
        entry.grabFocus()
    }
}
