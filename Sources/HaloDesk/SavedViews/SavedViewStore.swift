import Foundation
import HaloServices

/// Where a user's saved views are kept: the signed-in user's pocket, so they follow the user to
/// any computer, or a file on this computer for a session without an identified user.
protocol SavedViewStore: Sendable {
    /// True when the views follow the user (the pocket); false for this computer only.
    var followsUser: Bool { get }
    /// The views, and how many characters of the pocket's `data` are in use (nil for the file).
    func load() async throws -> (views: SavedViewList, pocketUsed: Int?)
    /// Applies `change` to the stored list and saves it; returns the list as saved.
    func change(_ change: @escaping @Sendable (inout SavedViewList) throws -> Void) async throws -> (
        views: SavedViewList, pocketUsed: Int?
    )
}

/// Why a change of the views was not saved.
enum SavedViewsError: Error, CustomStringConvertible {
    /// The pocket's `data` would pass its limit: `used` characters are taken, the change needs `needed`.
    case noRoom(used: Int, needed: Int, limit: Int)
    /// The view was deleted elsewhere in the meantime.
    case viewGone(name: String)
    /// The module has a view of that name already.
    case nameTaken(name: String)

    var description: String {
        switch self {
        case .noRoom(let used, let needed, let limit):
            let left = max(limit - used, 0)
            return
                "Your pocket has no room for this: it needs \(DisplayFormat.count(needed)) characters and "
                + "\(DisplayFormat.count(left)) of \(DisplayFormat.count(limit)) are left. Delete a view or shorten its filter."
        case .viewGone(let name):
            return "The view “\(name)” was deleted on another computer."
        case .nameTaken(let name):
            return "This module already has a view named “\(name)”."
        }
    }
}

/// The views in the pocket under `data.haloDesk.views`. A pocket save replaces all of `data`,
/// so each change is a read-modify-write guarded by the pocket's revision (`If-Match`): when
/// another computer saved in between, the change is redone on what it saved, never over it
/// (`AuthManager.changePocket`).
struct PocketViewStore: SavedViewStore {
    let auth: AuthManager
    var followsUser: Bool { true }

    init(auth: AuthManager) { self.auth = auth }

    func load() async throws -> (views: SavedViewList, pocketUsed: Int?) {
        let pocket = try await auth.getPocket(filterReferences: [])
        return (SavedViewList(pocketData: pocket.data), Pocket.dataLength(pocket.data))
    }

    func change(_ change: @escaping @Sendable (inout SavedViewList) throws -> Void) async throws -> (
        views: SavedViewList, pocketUsed: Int?
    ) {
        // `data` only: the lists stay as they are.
        let saved = try await auth.changePocket(filterReferences: []) { pocket in
            var views = SavedViewList(pocketData: pocket.data)
            try change(&views)
            let data = views.stored(in: pocket.data)
            let used = Pocket.dataLength(pocket.data), after = Pocket.dataLength(data)
            if after > Pocket.dataCharacterLimit {
                throw SavedViewsError.noRoom(used: used, needed: after - used, limit: Pocket.dataCharacterLimit)
            }
            let update = Pocket()
            update.setData(data)
            return update
        }.pocket
        return (SavedViewList(pocketData: saved.data), Pocket.dataLength(saved.data))
    }
}

/// The views of a session without an identified user, in a JSON file on this computer (one per
/// server), written atomically.
struct LocalViewStore: SavedViewStore {
    let file: URL
    var followsUser: Bool { false }

    /// The file for the server at `baseURL` under `directory` (the app's data folder).
    init(baseURL: URL?, directory: URL) {
        let server = (baseURL?.absoluteString ?? "local").map { $0.isLetter || $0.isNumber ? $0 : "_" }
        file = directory.appendingPathComponent("saved-views", isDirectory: true).appendingPathComponent(String(server) + ".json")
    }

    init(file: URL) { self.file = file }

    func load() async throws -> (views: SavedViewList, pocketUsed: Int?) {
        guard let data = try? Data(contentsOf: file) else { return (SavedViewList(), nil) }
        return (SavedViewList(json: try JSONValue(data: data)["views"]), nil)
    }

    func change(_ change: @escaping @Sendable (inout SavedViewList) throws -> Void) async throws -> (
        views: SavedViewList, pocketUsed: Int?
    ) {
        var (views, _) = try await load()
        try change(&views)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONValue.object(["views": views.json]).data(sortedKeys: true).write(to: file, options: .atomic)
        return (views, nil)
    }
}
