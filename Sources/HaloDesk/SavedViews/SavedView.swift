import Foundation
import HaloServices

/// A saved view: a name for a module's filter, tags and sort, opened from the sidebar.
///
/// Stored as compact JSON (the pocket holds only 2,000 characters for everything): the filter is
/// the text form of `halo search --filter` (`SearchFilters.expression`), so a view saved here
/// reads the same in the CLI, and a view naming fields the module no longer has still parses —
/// the builder marks those conditions instead of dropping them.
struct SavedView: Equatable, Sendable {
    var id: String
    var moduleId: String
    var name: String
    /// `SearchFilters.expression` ("" for no filter).
    var filter: String
    var tags: [FilterTag] = []
    var matchesAllTags = false
    var sort = InstancePager.Sort.recentFirst

    /// A new view with a fresh id: 8 hex digits are unique enough among one user's views and
    /// leave the pocket's room to the filters.
    init(moduleId: String, name: String, tree: FilterTree, sort: InstancePager.Sort) throws {
        id = String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(8)).lowercased()
        self.moduleId = moduleId
        self.name = name
        filter = ""
        self.sort = sort
        try take(tree)
    }

    /// Takes the filter and tags of `tree`, which must be applicable (the builder saves only then).
    mutating func take(_ tree: FilterTree) throws {
        guard let filters = try tree.filters() else {
            throw HaloError.invalidInput(message: "Complete or remove the marked conditions before saving the view.")
        }
        filter = filters.expression
        tags = tree.tags
        matchesAllTags = tree.matchesAllTags
    }

    /// The view as a builder tree over `fields` (unknown fields marked missing); nil when the
    /// stored text no longer parses (written by a newer or broken client).
    func tree(fields: [FilterField]) -> FilterTree? {
        guard let filters = try? SearchFilters.parse(expression: filter) else { return nil }
        var tree = FilterTree(filters, fields: fields)
        tree.tags = tags
        tree.matchesAllTags = matchesAllTags
        return tree
    }

    // MARK: JSON (documented in docs/architecture.md, "Saved views")

    var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "module": .string(moduleId), "name": .string(name), "filter": .string(filter),
            "sort": .string("\(sort.field.rawValue) \(sort.order.rawValue)"),
        ]
        if !tags.isEmpty { object["tags"] = .array(tags.map { .string("\($0.name)=\($0.value)") }) }
        if matchesAllTags { object["allTags"] = true }
        return .object(object)
    }

    /// nil for an entry this version cannot read (kept as it is by `SavedViewList`).
    init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue, let moduleId = json["module"]?.stringValue,
            let name = json["name"]?.stringValue, let filter = json["filter"]?.stringValue
        else { return nil }
        self.id = id
        self.moduleId = moduleId
        self.name = name
        self.filter = filter
        if let sort = json["sort"]?.stringValue {
            let parts = sort.split(separator: " ").map(String.init)
            guard parts.count == 2, let field = SortBy(rawValue: parts[0]), let order = SortingOrder(rawValue: parts[1]) else {
                return nil
            }
            self.sort = InstancePager.Sort(field: field, order: order)
        }
        for case .string(let pair) in json["tags"]?.arrayValue ?? [] {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            tags.append(FilterTag(name: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : ""))
        }
        matchesAllTags = json["allTags"]?.boolValue ?? false
    }
}

/// The views of one user, as stored under `data.haloDesk.views` of the pocket (or in the local
/// file): entries this version cannot read are kept, in place, so saving never drops them.
struct SavedViewList: Equatable, Sendable {
    private(set) var entries: [JSONValue] = []

    init(_ views: [SavedView] = []) { entries = views.map(\.json) }

    init(json: JSONValue?) { entries = json?.arrayValue ?? [] }

    /// The views readable by this version, in their saved order.
    var views: [SavedView] { entries.compactMap(SavedView.init(json:)) }

    var json: JSONValue { .array(entries) }

    func views(ofModule moduleId: String) -> [SavedView] { views.filter { $0.moduleId == moduleId } }

    mutating func add(_ view: SavedView) { entries.append(view.json) }

    /// Replaces the view with `view.id`; false when it is gone (deleted elsewhere).
    @discardableResult
    mutating func replace(_ view: SavedView) -> Bool {
        guard let index = entries.firstIndex(where: { $0["id"]?.stringValue == view.id }) else { return false }
        entries[index] = view.json
        return true
    }

    mutating func remove(id: String) { entries.removeAll { $0["id"]?.stringValue == id } }

    /// The pocket's `data` with this list under `haloDesk.views`, every other key kept.
    func stored(in data: [String: JSONValue]) -> [String: JSONValue] {
        var data = data
        var app = data[Self.appKey]?.objectValue ?? [:]
        app[Self.viewsKey] = json
        data[Self.appKey] = .object(app)
        return data
    }

    /// The list kept in a pocket's `data` (empty when there is none).
    init(pocketData data: [String: JSONValue]) { self.init(json: data[Self.appKey]?[Self.viewsKey]) }

    static let appKey = "haloDesk"
    static let viewsKey = "views"
}
