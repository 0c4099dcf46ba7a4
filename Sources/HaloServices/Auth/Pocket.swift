import Foundation
import HaloContentStore
import Synchronization

/// An identified user's pocket (PROTOCOL §8): named lists of references and a custom JSON
/// object limited to 2,000 characters serialized (the limits are `PocketLimits`, shared with the
/// server, and checked before sending against the numbers the server announced: `pocketLimits`). A reference type as in the seed
/// (`let pocket = Pocket(); pocket.addReference(…)`), safe to share across tasks.
public final class Pocket: Sendable, CustomStringConvertible {
    /// The documented limit of `data` as serialized JSON, checked before sending: the shared
    /// `PocketLimits.dataCharacters`, measured by `PocketLimits.dataLength(_:)` (Unicode scalars).
    public static let dataCharacterLimit = PocketLimits.dataCharacters

    /// How many of the `dataCharacterLimit` characters `data` takes, counted as the server counts.
    public static func dataLength(_ data: [String: JSONValue]) -> Int { PocketLimits.dataLength(data) }

    private struct State {
        /// nil marks a list to delete on the server (sent as JSON null).
        var references: [String: [String]?] = [:]
        var data: [String: JSONValue] = [:]
    }
    private let state: Mutex<State>

    /// The server's revision of this pocket (our extension, PROTOCOL §23.9: the answer's ETag),
    /// to pass to `savePocket(_:ifRevision:)`. For a pocket read from the offline copy, the
    /// revision the copy was read at (the server may have moved on: a save with it is then
    /// refused, never applied over the newer pocket). nil for a pocket made here, a copy kept by
    /// an earlier version, or a pocket served by a HALO server without revisions.
    public let revision: String?

    public init() {
        state = Mutex(State())
        revision = nil
    }

    /// A pocket of these lists and data, as read at `revision`.
    public convenience init(references: [String: [String]], data: [String: JSONValue], revision: String?) {
        self.init(state: State(references: references.mapValues { .some($0) }, data: data), revision: revision)
    }

    private init(state: State, revision: String?) {
        self.state = Mutex(state)
        self.revision = revision
    }

    /// Reads a pocket response: `references` lists may be null, `data` any object.
    public init(wire: JSONValue, revision: String? = nil) throws(HaloError) {
        self.revision = revision
        guard case .object(let object) = wire else { throw .invalidResponse(status: nil, message: "a pocket must be a JSON object") }
        var state = State()
        for (key, value) in object["references"]?.objectValue ?? [:] {
            if value.isNull { state.references[key] = .some(nil); continue }
            guard let items = value.arrayValue else {
                throw .invalidResponse(status: nil, message: "pocket reference list \(key) is not an array")
            }
            state.references[key] = .some(items.compactMap(\.stringValue))
        }
        state.data = object["data"]?.objectValue ?? [:]
        self.state = Mutex(state)
    }

    /// Reference lists by key (lists marked for removal are left out).
    public var references: [String: [String]] { state.withLock { $0.references.compactMapValues { $0 } } }

    /// The reference lists as a save sends them: nil for a list marked for removal (sent as null).
    public var referencesToSave: [String: [String]?] { state.withLock { $0.references } }

    /// The custom JSON object.
    public var data: [String: JSONValue] { state.withLock { $0.data } }

    /// The custom data as Foundation values, as the seed returned it.
    public var dataAsAny: [String: Any] { data.compactMapValues { AnyJSONConversion.any(from: $0) } }

    /// Adds `value` to the list `key` (creating it).
    public func addReference(key: String, value: String) {
        state.withLock { state in
            var list = (state.references[key] ?? nil) ?? []
            list.append(value)
            state.references[key] = .some(list)
        }
    }

    /// Removes `value` from the list `key`; true if it was there.
    @discardableResult
    public func removeReference(key: String, value: String) -> Bool {
        state.withLock { state in
            guard var list = state.references[key] ?? nil, let index = list.firstIndex(of: value) else { return false }
            list.remove(at: index)
            state.references[key] = .some(list)
            return true
        }
    }

    /// Replaces the list `key`; nil removes it (sent as null).
    public func setReferences(key: String, values: [String]?) {
        state.withLock { $0.references[key] = .some(values) }
    }

    /// Removes the whole list `key` (sent as null, so the server deletes it).
    public func removeReferences(key: String) {
        state.withLock { $0.references[key] = .some(nil) }
    }

    /// Replaces the custom data.
    public func setData(_ data: [String: JSONValue]) {
        state.withLock { $0.data = data }
    }

    /// Replaces the custom data from Foundation values (the seed's `[String: Any]`).
    public func setData(_ data: [String: Any]) {
        setData(data.mapValues { AnyJSONConversion.json(from: $0) })
    }

    /// The save body (§8.2, iOS: both parts always): removed lists as null.
    public var wireJSON: JSONValue {
        state.withLock { state in
            .object([
                "references": .object(state.references.mapValues { list in list.map { .array($0.map(JSONValue.string)) } ?? .null }),
                "data": .object(state.data),
            ])
        }
    }

    /// Fails with `invalidInput` when the pocket breaks a rule of `limits` (the server's, as it
    /// announced them): `data` longer than `dataCharacters` (as `PocketLimits.dataLength(_:)`
    /// counts: Unicode scalars of its compact sorted JSON), more than `referenceLists` lists, a
    /// list of more than `entriesPerList` entries, a list name or entry longer than
    /// `referenceLength` scalars, or a whole pocket over `wholePocketBytes` (`wholeBytes`). Lists
    /// marked for removal (sent as null) add no list and hold no entries. With `base` (the pocket
    /// the save is made on) the whole pocket is the one the save leaves on the server, and a
    /// pocket already over the limit may be saved smaller; without, the save alone is measured.
    func validate(_ limits: PocketLimitValues = .defaults, basedOn base: Pocket? = nil) throws(HaloError) {
        let (references, data) = state.withLock { ($0.references, $0.data) }
        let length = PocketLimits.dataLength(data)
        if length > limits.dataCharacters {
            throw .invalidInput(message: "Pocket data is \(length) characters of JSON; the limit is \(limits.dataCharacters)")
        }
        let lists = references.compactMapValues { $0 }
        if lists.count > limits.referenceLists {
            throw .invalidInput(message: "The pocket has \(lists.count) reference lists; the limit is \(limits.referenceLists)")
        }
        for key in references.keys.sorted() {
            let nameLength = key.unicodeScalars.count
            if nameLength > limits.referenceLength {
                throw .invalidInput(
                    message:
                        "The pocket reference list name \"\(key.prefix(40))…\" is \(nameLength) characters; the limit is \(limits.referenceLength)"
                )
            }
            guard let list = lists[key] else { continue }
            if list.count > limits.entriesPerList {
                throw .invalidInput(
                    message:
                        "The pocket reference list \"\(key)\" has \(list.count) entries; the limit is \(limits.entriesPerList) per list"
                )
            }
            if let (index, entry) = list.enumerated().first(where: { $0.element.unicodeScalars.count > limits.referenceLength }) {
                throw .invalidInput(
                    message:
                        "Entry \(index + 1) of the pocket reference list \"\(key)\" is \(entry.unicodeScalars.count) characters; the limit is \(limits.referenceLength)"
                )
            }
        }
        let whole = (base?.applying(self) ?? self).wholeBytes
        if whole > limits.wholePocketBytes, whole > base?.wholeBytes ?? 0 {
            throw .invalidInput(
                message:
                    "The pocket would be \(whole) bytes of JSON (data and references together); the limit is \(limits.wholePocketBytes)"
            )
        }
    }

    public var description: String { wireJSON.jsonString(sortedKeys: true) }

    /// The pocket a save of `save` leaves on a server holding this one (§8.2): `save`'s `data`
    /// replaces this `data`, each list `save` names replaces this one or (null) deletes it, the
    /// other lists stay. It keeps this pocket's revision: it shows what the save would make of it.
    public func applying(_ save: Pocket) -> Pocket {
        var lists = references
        for (key, list) in save.referencesToSave { lists[key] = list }
        return Pocket(references: lists, data: save.data, revision: revision)
    }

    /// Same lists and data (revisions aside).
    public func hasSameContent(as other: Pocket) -> Bool { wireJSON == other.wireJSON }

    /// Where the offline cache keeps `owner`'s pocket as read with `filter` (nil: the whole pocket):
    /// per user, so after a change of user, offline, the previous user's pocket never shows.
    static func keptAnswerKey(owner: String, filter: [String]?) -> String {
        "pocket-\(owner)-" + (filter.map { $0.isEmpty ? [""] : $0 } ?? []).joined(separator: ",")
    }

    /// A pocket answer as the cache keeps it: the body with the revision it came with, in one
    /// value, so a copy and its revision can never be stored apart (a revision newer than the copy
    /// would let a save pass over changes its author never saw).
    static func keptCopy(of response: HTTPResponse) -> Data {
        keptCopy(wire: (try? response.json()) ?? .object([:]), revision: response.headers["etag"])
    }

    static func keptCopy(wire: JSONValue, revision: String?) -> Data {
        var kept: [String: JSONValue] = ["pocket": wire]
        if let revision { kept["revision"] = .string(revision) }
        return JSONValue.object(kept).data(sortedKeys: true)
    }

    /// Reads a kept copy back; a copy kept by an earlier version (the bare answer) has no revision.
    convenience init(keptCopy body: Data) throws(HaloError) {
        let kept: JSONValue
        do { kept = try JSONValue(data: body) } catch { throw .cache(message: "The kept pocket is not JSON: \(error)") }
        if let pocket = kept["pocket"] {
            try self.init(wire: pocket, revision: kept["revision"]?.stringValue)
        } else {
            try self.init(wire: kept)
        }
    }
}

extension AuthManager {
    /// Reads the logged-in user's pocket (§8.1). `filterReferences`: nil = everything, a list =
    /// only those reference lists, `[]` = data only (sent as one empty `filterReferences[]`).
    public func getPocket(filterReferences: [String]? = nil) async throws(HaloError) -> Pocket {
        try await getPocket(filterReferences: filterReferences, offlinePolicy: nil)
    }

    /// `getPocket` under `offlinePolicy` (nil: the core's default). Offline, the copy comes with
    /// the revision it was read at.
    func getPocket(filterReferences: [String]?, offlinePolicy: OfflinePolicy?) async throws(HaloError) -> Pocket {
        let core = try requireCore()
        let keys = filterReferences.map { $0.isEmpty ? [""] : $0 } ?? []
        let query = keys.map { URLQueryItem(name: "filterReferences[]", value: $0) }
        let call = APIRequest(
            .get, "api/segmentation/identified-pocket/self", query: query, authenticationMode: .appPlus, offlinePolicy: offlinePolicy)
        let key = Pocket.keptAnswerKey(owner: currentUser?.account ?? "-", filter: filterReferences)
        let response = try await core.perform(call, cacheKey: key, keep: Pocket.keptCopy(of:))
        if AnswerSource(response).isFromCache { return try Pocket(keptCopy: response.body) }
        Pocket.noteLimits(of: response, core: core)
        return try Pocket(wire: try response.json(), revision: response.headers["etag"])
    }

    /// Saves the pocket (§8.2) and returns the server's resulting pocket. A pocket over a limit
    /// of the server (`pocketLimits`: data over 2,000 characters, too many or too long reference
    /// lists or entries, a whole pocket over 256 KiB) fails with `invalidInput` before anything
    /// is sent.
    ///
    /// With `ifRevision` (a `Pocket.revision` read earlier) the save happens only if nobody saved
    /// the pocket since (`If-Match`, our extension §23.9); otherwise it fails with HTTP 409 and
    /// the error's `conflictingPocket` is the pocket as it is now, so a read-modify-write redoes
    /// its change on that, never overwriting what another device saved.
    public func savePocket(_ pocket: Pocket, ifRevision: String? = nil) async throws(HaloError) -> Pocket {
        try await savePocket(pocket, ifRevision: ifRevision, basedOn: nil)
    }

    /// `savePocket`, checked as the pocket `base` becomes with it when `base` is known.
    func savePocket(_ pocket: Pocket, ifRevision: String?, basedOn base: Pocket?) async throws(HaloError) -> Pocket {
        let core = try requireCore()
        try pocket.validate(Pocket.limits(of: core), basedOn: base)
        let call = APIRequest(
            .put, "api/segmentation/identified-pocket", body: .json(pocket.wireJSON),
            headers: ifRevision.map { ["If-Match": $0] } ?? [:], authenticationMode: .appPlus)
        let response = try await core.perform(call)
        Pocket.noteLimits(of: response, core: core)
        let saved = try Pocket(wire: try response.json(), revision: response.headers["etag"])
        await keepCopy(of: response, core: core)
        return saved
    }

    /// Keeps a save's answer (the whole pocket) as the offline copy, when the core keeps copies:
    /// an edit made offline after this save is then based on it, not on an older read.
    private func keepCopy(of response: HTTPResponse, core: CoreManager) async {
        guard core.defaultOfflinePolicy != .none, let account = currentUser?.account, let cache = try? core.offlineCache() else { return }
        let key = Pocket.keptAnswerKey(owner: account, filter: nil)
        try? await BlockingWork.run(name: "halo-cache-write") { try cache.storeResponse(Pocket.keptCopy(of: response), forKey: key) }
    }

    /// The seed's form of `getPocket`.
    public func getPocket(
        filterReferences: [String]? = nil,
        completionHandler handler: @escaping @Sendable (HTTPResponse?, Result<Pocket?, HaloError>) -> Void
    ) {
        Task {
            do throws(HaloError) { handler(nil, .success(try await getPocket(filterReferences: filterReferences))) } catch {
                handler(nil, .failure(error))
            }
        }
    }

    /// The seed's form of `savePocket`.
    public func savePocket(
        _ pocket: Pocket, completionHandler handler: @escaping @Sendable (HTTPResponse?, Result<Pocket?, HaloError>) -> Void
    ) {
        Task {
            do throws(HaloError) { handler(nil, .success(try await savePocket(pocket))) } catch { handler(nil, .failure(error)) }
        }
    }
}

extension HaloError {
    /// For a save with `ifRevision` refused because the pocket moved on (HTTP 409): the pocket as
    /// the server holds it now, with its revision. nil for any other error.
    public var conflictingPocket: Pocket? {
        guard case .server(409, _, let extra?) = self, let wire = extra["pocket"], let revision = extra["revision"]?.stringValue
        else { return nil }
        return try? Pocket(wire: wire, revision: revision)
    }
}
