import Foundation
import HaloServices
import XCTest

@testable import HaloDesk

/// Module design in the app against a real server: New Module, a field of every type added in the
/// field dialog, an instance saved in it and opened, then a field renamed and one removed while it
/// is open (the editor follows); a type change that would clear a value asks first; a second client
/// sees the same schema and values through search and sync; export, a refused import and a good
/// one; Delete Module asks with the count.
final class ModuleSettingsTests: XCTestCase {
    func testDesignAModuleWhileAnInstanceOfItIsOpen() throws {
        try MainActor.assumeIsolated {
            let harness = try WorkspaceHarness(liveUpdates: true)
            defer {
                harness.view.moduleSettingsWindow?.fieldDialog?.window.destroy()
                harness.view.moduleSettingsWindow?.window.destroy()
                harness.tearDown()
            }
            let view = harness.view, checker = harness.checker

            // New Module: Create stays off until there is a name.
            view.newModule()
            let dialog = try XCTUnwrap(view.pendingDialog)
            let nameEntry = try XCTUnwrap(view.newModuleNameEntry)
            nameEntry.text = "Recipes"
            dialog.respond("create")
            XCTAssertTrue(harness.pump { view.moduleSettingsWindow?.module.name == "Recipes" }, "the settings did not open")
            let settings = try XCTUnwrap(view.moduleSettingsWindow)
            let moduleId = try XCTUnwrap(settings.module.id)
            XCTAssertTrue(harness.pump { view.sidebar.modules.contains { $0.id == moduleId } }, "the sidebar lists it")
            try harness.screenshots(name: "workspace-new-module")

            // One field of every type, through the dialog as a user fills it in.
            for type in FieldDialog.types {
                settings.addFieldButton.click()
                let fieldDialog = try XCTUnwrap(settings.fieldDialog)
                XCTAssertFalse(fieldDialog.saveButton.isSensitive, "no name yet")
                fieldDialog.nameRow.asEditable.text = Self.fieldName(type)
                fieldDialog.typeRow.selectedIndex = FieldDialog.types.firstIndex(of: type) ?? 0
                XCTAssertEqual(fieldDialog.choicesRow.isVisible, type.takesChoices)
                if type.takesChoices {
                    XCTAssertFalse(fieldDialog.saveButton.isSensitive, "a choice field needs its choices")
                    fieldDialog.choicesRow.asEditable.text = "Easy, Medium, Hard"
                }
                if type == .date { fieldDialog.dateOnlySwitch.isOn = true }
                if type == .localizedText { try GUITestEnvironment.screenshots(of: fieldDialog.window, named: "field-dialog") }
                let count = settings.fieldRows.count
                fieldDialog.saveButton.click()
                XCTAssertTrue(harness.pump { settings.fieldRows.count == count + 1 }, "\(type.name) was not added")
            }
            XCTAssertEqual(settings.fieldRows.map(\.field.name), FieldDialog.types.map(Self.fieldName))
            XCTAssertEqual(settings.fieldRows.first { $0.field.name == "when" }?.row.subtitle, "Date, days only")
            XCTAssertEqual(settings.fieldRows.first { $0.field.name == "level" }?.row.subtitle, "Single choice: Easy, Medium, Hard")
            try GUITestEnvironment.screenshots(of: settings.window, named: "module-settings")
            // The toasts' own close button (libadwaita 1.2's AdwToastWidget) is not ours to name.
            let unnamed = AccessibilityAudit.unnamedControls(in: settings.window.widget).filter { !$0.contains("AdwToastWidget") }
            XCTAssertEqual(unnamed, [], "controls without an accessible name:\n" + unnamed.joined(separator: "\n"))

            // An instance saved in it (by another client), opened in the app.
            let pancakes = try WorkspaceHarness.wait {
                try await checker.content.save(
                    ContentInstance(
                        moduleId: moduleId, name: "Pancakes",
                        values: ["title": "Pancakes", "servings": 4, "level": "Easy", "vegan": true, "notes": "Flip once"]))
            }
            let pancakesId = try XCTUnwrap(pancakes.id)
            view.sidebar.select(moduleId: moduleId)
            if let module = view.sidebar.modules.first(where: { $0.id == moduleId }) { view.openModule(module) }
            XCTAssertTrue(harness.pump { view.pager.instance(at: 0)?.id == pancakesId })
            view.table.columnView.select([0])
            XCTAssertTrue(harness.pump { view.editor.instance?.id == pancakesId })
            XCTAssertNotNil(view.editor.fieldEditor(named: "servings", as: EntryFieldEditor.self))

            // Renamed while open: the editor follows (nothing edited, so no banner).
            let servingsRow = try XCTUnwrap(settings.fieldRows.first { $0.field.name == "servings" })
            servingsRow.edit.click()
            let rename = try XCTUnwrap(settings.fieldDialog)
            XCTAssertEqual(rename.saveButton.label, "_Save")
            rename.nameRow.asEditable.text = "portions"
            rename.saveButton.click()
            XCTAssertTrue(harness.pump { settings.fieldRows.contains { $0.field.name == "portions" } })
            XCTAssertTrue(
                harness.pump {
                    view.editor.fieldEditor(named: "portions", as: EntryFieldEditor.self)?.entry.text == "4"
                        && view.editor.fieldEditor(named: "servings", as: EntryFieldEditor.self) == nil
                },
                "the open editor did not follow the rename")

            // Removed while the user types elsewhere: asks with the count; what was typed stays.
            view.editor.nameEntry.text = "Fluffy Pancakes"
            let notesRow = try XCTUnwrap(settings.fieldRows.first { $0.field.name == "notes" })
            var requests = settings.completedRequests
            notesRow.remove.click()
            XCTAssertTrue(harness.pump { settings.pendingDialog != nil || settings.completedRequests > requests })
            let removal = try XCTUnwrap(settings.pendingDialog)
            XCTAssertTrue(removal.body.contains("1 instance holds a value"), removal.body)
            removal.respond("confirm")
            XCTAssertTrue(harness.pump { !settings.fieldRows.contains { $0.field.name == "notes" } })
            XCTAssertTrue(harness.pump { view.changeBanner.isVisible }, "unsaved edits get the banner, not an overwrite")
            XCTAssertTrue(view.changeBannerLabel.text.contains("changed the fields of this module"), view.changeBannerLabel.text)
            try harness.screenshots(name: "change-banner-fields")
            XCTAssertEqual(view.editor.nameEntry.text, "Fluffy Pancakes", "what the user typed stays")

            // A type change that would clear a value asks first; Cancel changes nothing.
            let levelRow = try XCTUnwrap(settings.fieldRows.first { $0.field.name == "level" })
            levelRow.edit.click()
            let retype = try XCTUnwrap(settings.fieldDialog)
            retype.typeRow.selectedIndex = FieldDialog.types.firstIndex(of: .number) ?? 0
            XCTAssertTrue(harness.pump { retype.reportLabel.isVisible }, "no preview of what happens to the values")
            XCTAssertTrue(retype.reportLabel.text.contains("1 cannot be kept"), retype.reportLabel.text)
            requests = retype.completedRequests
            retype.saveButton.click()
            XCTAssertTrue(harness.pump { retype.pendingDialog != nil })
            XCTAssertTrue(retype.pendingDialog?.body.contains("Pancakes (\"Easy\")") ?? false, retype.pendingDialog?.body ?? "")
            retype.pendingDialog?.respond(ConfirmationDialog.cancel)
            retype.window.close()
            XCTAssertEqual(settings.fieldRows.first { $0.field.name == "level" }?.field.fieldType?.type, .singleChoice)

            // A second client sees the same schema, and search and sync agree with it.
            let modules = try WorkspaceHarness.wait { try await checker.content.getModules(withFields: true).modules }
            let schema = try XCTUnwrap(modules.first { $0.id == moduleId })
            XCTAssertEqual(schema.fields?.map(\.name), settings.fieldRows.map(\.field.name))
            XCTAssertFalse(schema.fields?.contains { $0.name == "notes" } ?? true)
            let found = try WorkspaceHarness.wait {
                try await checker.content.search(
                    query: SearchQuery().moduleIds([moduleId]).searchFilter(eq(property: "portions", value: 4)).skipPagination())
            }
            XCTAssertEqual(found.instances.map(\.id), [pancakesId])
            let synced = try WorkspaceHarness.wait { try await checker.content.sync(query: SyncQuery(moduleId: moduleId)) }
            let syncedPancakes = try XCTUnwrap(synced.created.first { $0.id == pancakesId })
            XCTAssertEqual(syncedPancakes.values["portions"], 4)
            XCTAssertNil(syncedPancakes.values["servings"])
            XCTAssertNil(syncedPancakes.values["notes"])

            // Export as CSV, then import: a file with a bad row imports nothing and names the row;
            // a good one imports (Pancakes updated by its id, one new instance).
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("module-files-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let exported = folder.appendingPathComponent("recipes.csv")
            var done = settings.completedRequests
            settings.export(.csv, to: exported)
            XCTAssertTrue(harness.pump { settings.completedRequests > done })
            let csv = try String(contentsOf: exported, encoding: .utf8)
            XCTAssertTrue(csv.hasPrefix("id,name,title,portions,"), csv)
            XCTAssertTrue(csv.contains("\(pancakesId),Pancakes,Pancakes,4,"), csv)

            let badFile = folder.appendingPathComponent("bad.csv")
            try Data("name,portions\nWaffles,2\nCrepes,a few\n".utf8).write(to: badFile)
            done = settings.completedRequests
            settings.importFile(badFile)
            XCTAssertTrue(harness.pump { settings.completedRequests > done })
            let refusedDialog = try XCTUnwrap(settings.pendingDialog)
            XCTAssertEqual(refusedDialog.heading, "Nothing Was Imported")
            XCTAssertTrue(refusedDialog.body.contains("line 3, portions: 'portions' (Number) cannot hold \"a few\""), refusedDialog.body)
            try GUITestEnvironment.screenshots(of: refusedDialog, named: "import-refused")
            refusedDialog.respond(ConfirmationDialog.cancel)
            XCTAssertEqual(view.pager.totalItems, 1, "nothing was imported")

            let goodFile = folder.appendingPathComponent("good.csv")
            try Data("id,name,portions\n\(pancakesId),Pancakes,6\n,Waffles,2\n".utf8).write(to: goodFile)
            done = settings.completedRequests
            settings.importFile(goodFile)
            XCTAssertTrue(harness.pump { settings.completedRequests > done })
            XCTAssertNil(settings.pendingDialog)
            XCTAssertNil(settings.importTask)
            XCTAssertFalse(settings.importProgressRow.isVisible)
            XCTAssertTrue(harness.pump { view.pager.totalItems == 2 }, "the list shows the imported instance")
            try GUITestEnvironment.screenshots(of: settings.window, named: "module-settings-imported")

            // Delete Module says how many instances go.
            settings.deleteModuleButton.click()
            XCTAssertTrue(harness.pump { settings.pendingDialog != nil })
            XCTAssertTrue(
                settings.pendingDialog?.body.contains("Its 2 instances are deleted with it") ?? false, settings.pendingDialog?.body ?? "")
            settings.pendingDialog?.respond("confirm")
            XCTAssertTrue(harness.pump { !view.sidebar.modules.contains { $0.id == moduleId } }, "the sidebar still lists it")
        }
    }

    /// A field name per type: "title" for Text, "servings" for Number, …
    static func fieldName(_ type: FieldType) -> String {
        switch type {
        case .text: "title"
        case .number: "servings"
        case .singleChoice: "level"
        case .boolean: "vegan"
        case .longText: "notes"
        case .date: "when"
        default: type.name.lowercased().replacingOccurrences(of: " ", with: "_")
        }
    }
}
