import CGtk
import Foundation
import HaloServices

/// Export and import of the module's instances (docs/protocol.md §23.11): export writes every
/// instance to a file the user picks; import reads a file, sends its rows in chunks with a
/// progress bar and Cancel, and either imports all of them or, when a row is refused, nothing,
/// listing the refused rows by line and field.
extension ModuleSettingsWindow {
    func chooseExportFile(_ format: TransferFormat) {
        let name = (module.name ?? "module").replacingOccurrences(of: "/", with: "-") + "." + format.rawValue
        FileChooser.choose(title: "Export “\(module.name ?? "")”", saving: name, accept: "_Export", parent: window) { [weak self] url in
            if let url { self?.export(format, to: url) }
        }
    }

    func chooseImportFile() {
        FileChooser.choose(title: "Import into “\(module.name ?? "")”", accept: "_Import", parent: window) { [weak self] url in
            if let url { self?.importFile(url) }
        }
    }

    func export(_ format: TransferFormat, to url: URL) {
        guard let moduleId = module.id else { return }
        let core = core
        Task { @MainActor in
            defer { self.completedRequests += 1 }
            do {
                let data = try await core.content.exportModule(id: moduleId, format: format)
                try data.write(to: url, options: .atomic)
                self.toast("Exported to \(url.lastPathComponent).")
            } catch {
                self.toast("Could not export: \((error as? HaloError)?.sentence ?? error.localizedDescription)")
            }
        }
    }

    func importFile(_ url: URL) {
        guard let moduleId = module.id, importTask == nil else { return }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            return toast("Could not read \(url.lastPathComponent): \(error.localizedDescription)")
        }
        let core = core
        showImportProgress(0)
        importTask = Task { @MainActor in
            defer {
                self.importTask = nil
                self.importProgressRow.isVisible = false
                self.importButton.isSensitive = true
                self.completedRequests += 1
            }
            do throws(HaloError) {
                let result = try await core.content.importModule(
                    id: moduleId, file: data, format: TransferFormat(fileName: url.lastPathComponent)
                ) { sent, total in
                    Task { @MainActor in self.showImportProgress(total == 0 ? 1 : Double(sent) / Double(total)) }
                }
                guard result.problems.isEmpty else { return self.showRefusedRows(result, file: url.lastPathComponent) }
                self.onChanged(false)
                self.toast("Imported: \(result.created) created, \(result.updated) updated, \(result.unchanged) unchanged.")
            } catch .cancelled {
                self.toast("Import cancelled: nothing was imported.")
            } catch {
                self.toast("Could not import \(url.lastPathComponent): \(error.sentence)")
            }
        }
    }

    private func showImportProgress(_ fraction: Double) {
        importProgressRow.isVisible = true
        importButton.isSensitive = false
        gtk_progress_bar_set_fraction(OpaquePointer(importProgress.raw), fraction)
    }

    /// Nothing was imported: which rows to correct, by line and field.
    private func showRefusedRows(_ result: ModuleImportResult, file: String) {
        let listed = result.problems.prefix(12).map { "• \($0)" }.joined(separator: "\n")
        let more = result.problemCount > 12 ? "\n… and \(result.problemCount - 12) more" : ""
        ask(
            heading: "Nothing Was Imported",
            body:
                "\(result.problemCount == 1 ? "A row" : "\(result.problemCount) rows") of \(file) must be corrected first:\n\(listed)\(more)",
            confirm: "_Choose Another File…", destructive: false
        ) { [weak self] in self?.chooseImportFile() }
    }
}
