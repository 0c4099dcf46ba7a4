import Foundation
import HaloContentStore
import Hummingbird
import NIOCore
import Synchronization

/// E19 `POST /api/generalcontent/instance/sync` (§14), streamed.
///
/// The answer is read in one snapshot at database speed into a `SyncSpool` and sent from there at
/// the client's pace, so no client holds a database reader; `StreamAdmission` caps how many syncs
/// run at once (overall, per token, per address) and how many read the database together.
///
/// Consistency: the answer is read in a snapshot whose watermark T ends the window
/// (`ServerStorage.startSyncRead`): every write stamped ≤ T is in the snapshot and every later
/// write is stamped > T, so the client's next window (T, …] cannot miss a write, on SQLite as on
/// PostgreSQL shared by several processes.
enum SyncRoutes {
    /// Instances per streamed chunk: big enough for few writes, small enough for flat memory.
    static let chunkSize = 500

    struct SyncRequest: Sendable {
        var moduleId: String?
        var moduleName: String?
        var locale: String?
        var fromSync: Int64?
        var toSync: Int64?

        init(_ body: [String: JSONValue]) throws {
            moduleId = try body.optionalString("moduleId").flatMap { $0.isEmpty ? nil : $0 }
            moduleName = try body.optionalString("moduleName").flatMap { $0.isEmpty ? nil : $0 }
            locale = try body.optionalString("locale").flatMap { $0.isEmpty ? nil : $0 }
            fromSync = try body.optionalMilliseconds("fromSync")
            toSync = try body.optionalMilliseconds("toSync")
            if moduleId == nil && moduleName == nil { throw APIError.badRequest("'moduleId' or 'moduleName' is required") }
            if let fromSync, let toSync, toSync < fromSync {
                throw APIError.badRequest("'toSync' (\(toSync)) must not be before 'fromSync' (\(fromSync))")
            }
        }
    }

    static func register(_ router: Router<ServerContext>, _ env: ServerEnvironment) {
        router.post("/api/generalcontent/instance/sync") { request, context in
            let body = try await RequestInput.jsonObject(request, limit: env.maxBodyBytes)
            let sync = try SyncRequest(body)
            let authorization = request.headers[.authorization]
            // Counted from here until both the reader and the response have let go of the spool.
            let release = try env.streams.admit(token: authorization, address: context.clientAddress)
            let spool = SyncSpool(
                memoryBytes: env.limits.syncMemoryBytes, directory: env.configuration.dataDirectory, onRelease: release)
            let total = SyncTotal()
            let storage = env.storage
            await env.streams.enterReader()
            do {
                try await storage.startSyncRead { result, watermark in
                    defer { env.streams.leaveReader() }
                    produce(
                        sync, syncTimestamp: storage.syncTimestamp(requested: sync.toSync, watermark: watermark),
                        authorization: authorization, env, result, spool, total)
                }
            } catch {
                env.streams.leaveReader()
                throw error
            }
            // Errors found before the first byte (token, unknown module) become normal error envelopes.
            if case .failure(let error) = await spool.next() {
                spool.stopConsuming()
                throw error
            }
            // Additive: lets clients show "items done / total" (real SDKs ignore unknown headers).
            var headers: HTTPFields = [.contentType: JSONResponse.contentType]
            if let name = HTTPFields.Element.Name("x-halo-sync-total") { headers[name] = String(total.value.withLock { $0 }) }
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    // A client that stops reading is cut off by `StalledClientHandler`; the write
                    // then throws and the spool is dropped.
                    defer { spool.stopConsuming() }
                    while true {
                        switch await spool.next() {
                        case .chunk(let buffer): try await writer.write(buffer)
                        case .end, .ready:
                            try await writer.finish(nil)
                            return
                        case .failure(let error):
                            // Headers are gone already: log and cut the body short (the JSON stays invalid).
                            env.logger.error("sync stream failed: \(error)")
                            throw error
                        }
                    }
                })
        }
    }

    /// Runs on a database thread inside ONE read transaction: authenticates, resolves the
    /// module, then walks the change set chunk by chunk into the pipe.
    private static func produce(
        _ sync: SyncRequest, syncTimestamp: Int64, authorization: String?, _ env: ServerEnvironment,
        _ result: Result<any SQLExecutor, any Error>, _ pipe: SyncSpool, _ total: SyncTotal
    ) {
        do {
            let db = try result.get()
            _ = try env.tokens.authenticate(authorization: authorization, in: db)
            let moduleIds: [String]
            if let id = sync.moduleId {
                // A deleted module still syncs: its instances come as deletions.
                guard try ModuleCatalog.module(id: id, includingDeleted: true, in: db) != nil else {
                    throw APIError.notFound("Module \(id) not found")
                }
                moduleIds = [id]
            } else {
                let name = sync.moduleName ?? ""
                moduleIds = try ModuleCatalog.ids(named: name, in: db)
                guard !moduleIds.isEmpty else { throw APIError.notFound("Module named \(name) not found") }
            }
            let localized = try ModuleCatalog.localizedFieldNames(in: db)
            let count = try ContentTables.countChanges(moduleIds: moduleIds, from: sync.fromSync, to: syncTimestamp, in: db)
            total.value.withLock { $0 = count }
            guard pipe.send(.ready) else { return }
            var encoder = SyncJSONEncoder(syncTimestamp: syncTimestamp)
            // Written from the stored JSON of each instance, not decoded and encoded again.
            try ContentTables.forEachChangeAsWireJSON(
                moduleIds: moduleIds, from: sync.fromSync, to: syncTimestamp, chunkSize: chunkSize,
                locale: sync.locale, localizedFields: localized, in: db
            ) { chunk in
                guard pipe.send(.chunk(encoder.encode(chunk))) else { throw CancellationError() }
            }
            if pipe.send(.chunk(encoder.finish())) { pipe.send(.end) }
        } catch is CancellationError {
            return
        } catch {
            pipe.send(.failure(error))
        }
    }
}

/// The item count of a sync answer, set by the producer before it signals `.ready`.
final class SyncTotal: Sendable {
    let value = Mutex(0)
}

/// Writes `{"syncTimestamp":T,"created":[…],"updated":[…],"deleted":[{"id":…}]}` piece by piece.
/// All three arrays are always present (§14.2), chunks arrive created → updated → deleted.
struct SyncJSONEncoder {
    private enum Section: Int { case created, updated, deleted }
    private var section: Section?
    private var sectionHasItems = false
    private var started = false
    private let syncTimestamp: Int64

    init(syncTimestamp: Int64) { self.syncTimestamp = syncTimestamp }

    mutating func encode(_ chunk: SyncTextChunk) -> ByteBuffer {
        var buffer = ByteBuffer()
        switch chunk {
        case .created(let items, let count):
            advance(to: .created, &buffer)
            append(items, count: count, &buffer)
        case .updated(let items, let count):
            advance(to: .updated, &buffer)
            append(items, count: count, &buffer)
        case .deleted(let ids):
            advance(to: .deleted, &buffer)
            for id in ids { append(JSONValue.object(["id": .string(id)]).compactJSONText, count: 1, &buffer) }
        }
        return buffer
    }

    mutating func finish() -> ByteBuffer {
        var buffer = ByteBuffer()
        advance(to: .deleted, &buffer)
        buffer.writeString("]}")
        return buffer
    }

    /// Appends `count` comma-separated items.
    private mutating func append(_ items: String, count: Int, _ buffer: inout ByteBuffer) {
        guard count > 0 else { return }
        if sectionHasItems { buffer.writeString(",") }
        buffer.writeString(items)
        sectionHasItems = true
    }

    /// Opens every section up to `target`, closing the ones before it.
    private mutating func advance(to target: Section, _ buffer: inout ByteBuffer) {
        if !started {
            buffer.writeString("{\"syncTimestamp\":\(syncTimestamp)")
            started = true
        }
        while section.map({ $0.rawValue < target.rawValue }) ?? true {
            if section != nil { buffer.writeString("]") }
            let next = Section(rawValue: (section?.rawValue ?? -1) + 1) ?? .deleted
            buffer.writeString(",\"\(next == .created ? "created" : next == .updated ? "updated" : "deleted")\":[")
            section = next
            sectionHasItems = false
        }
    }
}
