import Foundation

/// The file formats of export and import.
public enum TransferFormat: String, Sendable, CaseIterable {
    /// HALO's batch JSON: `{"createdOrUpdated": [instance…]}` (a plain array is read too).
    case json
    /// One row per instance, one column per field (`InstanceCSV`).
    case csv

    /// The format a file name says (`.csv`, else JSON).
    public init(fileName: String) {
        self = fileName.lowercased().hasSuffix(".csv") ? .csv : .json
    }
}

/// A row the server (or the file's reader) refused, by its line in the file (for JSON, the
/// instance's position, from 1) and field.
public struct ImportProblem: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var field: String?
    public var message: String

    public var description: String { "line \(line)\(field.map { ", \($0)" } ?? ""): \(message)" }
}

/// What an import did; when `problems` is not empty nothing was imported.
public struct ModuleImportResult: Sendable, Equatable {
    public var created = 0
    public var updated = 0
    public var unchanged = 0
    /// Every refused row (nothing is imported while there is one).
    public var problems: [ImportProblem] = []
    /// How many rows had problems (the server lists the first 200).
    public var problemCount = 0
}

/// Export and import of a module's instances (docs/protocol.md §23.11).
extension ContentManager {
    /// Rows sent per request while importing: well under the server's body limit.
    static let importChunk = 500

    /// Instances read per search while exporting (the server's largest page).
    static let exportPage = 1_000

    /// Every instance of the module, as a file in `format`. Read page by page from the server
    /// (oldest first; the server breaks ties by id), so a large module never makes one answer
    /// past the SDK's response limit.
    public func exportModule(id moduleId: String, format: TransferFormat) async throws(HaloError) -> Data {
        var instances: [ContentInstance] = []
        for page in 1... {
            let query = SearchQuery().moduleIds([moduleId]).addSortBy(field: .createdAt, order: .ascending)
                .pagination(page: page, limit: Self.exportPage)
            let found = try await search(query: query, offlinePolicy: OfflinePolicy.none)
            instances += found.instances
            if found.instances.count < Self.exportPage || instances.count >= found.paginationInfo.totalItems { break }
        }
        switch format {
        case .json:
            return JSONValue.object(["createdOrUpdated": .array(instances.map(\.wireJSON))]).data(sortedKeys: true)
        case .csv:
            return Data(InstanceCSV.write(instances, fields: try await fields(of: moduleId)).utf8)
        }
    }

    /// Imports `file` into the module: every row is checked on the server first (problems come
    /// back by line and field, and then nothing is imported), uploaded in chunks to its staging
    /// area, and committed at once. `progress` gets (rows sent, rows in the file). Cancelling the
    /// task cancels the import on the server: nothing of it remains.
    public func importModule(
        id moduleId: String, file: Data, format: TransferFormat, progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws(HaloError) -> ModuleImportResult {
        let rows = try await importRows(file, format: format, moduleId: moduleId)
        let core = try core()
        let started = try await core.performJSON(APIRequest(.post, "api/generalcontent/module/\(moduleId)/import"))
        guard let importId = started["importId"]?.stringValue else {
            throw .invalidResponse(status: 200, message: "the server did not name the import")
        }
        var result = ModuleImportResult()
        do throws(HaloError) {
            for start in stride(from: 0, to: rows.count, by: Self.importChunk) {
                if Task.isCancelled { throw .cancelled }
                let chunk = rows[start..<min(start + Self.importChunk, rows.count)]
                let body: JSONValue = ["rows": .array(chunk.map { ["line": .number(Double($0.line)), "instance": .object($0.instance)] })]
                let answer = try await core.performJSON(APIRequest(.post, "api/generalcontent/import/\(importId)/rows", body: .json(body)))
                for problem in answer["problems"]?.arrayValue ?? [] {
                    result.problemCount += 1
                    result.problems.append(
                        ImportProblem(
                            line: Int(problem["line"]?.int64Value ?? 0), field: problem["field"]?.stringValue,
                            message: problem["message"]?.stringValue ?? "refused"))
                }
                progress?(min(start + Self.importChunk, rows.count), rows.count)
            }
            if Task.isCancelled { throw .cancelled }
            guard result.problems.isEmpty else {
                _ = try? await core.performJSON(APIRequest(.delete, "api/generalcontent/import/\(importId)"))
                return result
            }
            let outcome = try await core.performJSON(APIRequest(.post, "api/generalcontent/import/\(importId)/commit"))
            func count(_ key: String) -> Int { Int(outcome[key]?.int64Value ?? 0) }
            (result.created, result.updated, result.unchanged) = (count("created"), count("updated"), count("unchanged"))
            return result
        } catch {
            // Cancelled or failed before the commit: the staged rows go.
            _ = try? await core.performJSON(APIRequest(.delete, "api/generalcontent/import/\(importId)"))
            throw error
        }
    }

    /// The file's rows as instance objects with their lines.
    private func importRows(_ file: Data, format: TransferFormat, moduleId: String) async throws(HaloError) -> [InstanceCSV.Row] {
        switch format {
        case .csv:
            guard let text = String(data: file, encoding: .utf8) else { throw .invalidInput(message: "The CSV file is not UTF-8 text") }
            return try InstanceCSV.read(text, fields: try await fields(of: moduleId))
        case .json:
            let json: JSONValue
            do { json = try JSONValue(parsing: file) } catch { throw .invalidInput(message: "The JSON file is not valid: \(error)") }
            guard let items = json["createdOrUpdated"]?.arrayValue ?? json.arrayValue else {
                throw .invalidInput(message: "The JSON file holds neither {\"createdOrUpdated\": […]} nor a list of instances")
            }
            return try items.enumerated().map { index, item throws(HaloError) in
                guard case .object(var object) = item else { throw .invalidInput(message: "Instance \(index + 1) is not a JSON object") }
                // Where it was and who made it are the server's to say.
                for key in [
                    "module", "createdAt", "updatedAt", "deletedAt", "createdBy", "updatedBy", "deletedBy", "revision", "customerId",
                ] {
                    object.removeValue(forKey: key)
                }
                return InstanceCSV.Row(line: index + 1, instance: object)
            }
        }
    }

    private func fields(of moduleId: String) async throws(HaloError) -> [ModuleField] {
        guard let module = try await getModules(withFields: true).modules.first(where: { $0.id == moduleId }) else {
            throw .invalidInput(message: "No module with the id \(moduleId)")
        }
        return module.fields ?? []
    }
}
