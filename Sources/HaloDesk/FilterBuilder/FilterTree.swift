import Foundation
import HaloServices

/// The builder's whole tree: a root group ("Match all / any of the following") whose children are
/// conditions and nested groups, edited by node id, with undo and redo of every edit.
struct FilterTree: Equatable, Sendable {
    private(set) var root: FilterNode
    private var nextId = 1
    /// The server's nesting limit (`search-filter-depth`, 16 by default): the root group is level 1,
    /// its conditions level 2. A group at the last level cannot hold another group.
    let maxDepth: Int
    /// The Tags section: segmentation tags are top-level keys on the wire (`segmentTags`,
    /// `segmentMode`), not conditions of the tree.
    var tags: [FilterTag] = []
    /// `segmentMode` total: an instance must have every tag (else one is enough).
    var matchesAllTags = false

    init(maxDepth: Int = 16) {
        self.maxDepth = maxDepth
        root = FilterNode(id: 0, content: .group(.and, []))
    }

    // MARK: Reading

    var isEmpty: Bool { if case .group(_, let children) = root.content { children.isEmpty } else { false } }

    /// The number of conditions and tags (the Filter button shows it).
    var conditionCount: Int { root.conditions.count + tags.count }

    /// The tags to segment by (nil while one has no name).
    var segmentTags: [Tag]? {
        guard tags.allSatisfy({ !$0.name.trimmingCharacters(in: .whitespaces).isEmpty }) else { return nil }
        return tags.map { Tag(name: $0.name.trimmingCharacters(in: .whitespaces), value: $0.value.isEmpty ? nil : $0.value) }
    }

    func node(_ id: Int) -> FilterNode? { root.find(id) }

    /// How deep the node is: the root is 1.
    func depth(of id: Int) -> Int? { root.depth(of: id, at: 1) }

    /// Whether a group may hold another group (the nested group's conditions must stay within the limit).
    func canAddGroup(to groupId: Int) -> Bool { (depth(of: groupId) ?? maxDepth) + 2 <= maxDepth }

    // MARK: Editing (each returns the new node's id where it makes one)

    @discardableResult
    mutating func addCondition(to groupId: Int, _ condition: FilterCondition = FilterCondition()) -> Int? {
        let id = takeId()
        return append(FilterNode(id: id, content: .condition(condition)), to: groupId) ? id : nil
    }

    @discardableResult
    mutating func addGroup(to groupId: Int, match: SearchFilterCondition = .and) -> Int? {
        guard canAddGroup(to: groupId) else { return nil }
        let id = takeId()
        return append(FilterNode(id: id, content: .group(match, [])), to: groupId) ? id : nil
    }

    /// A copy of the node (and everything under it) right after it.
    @discardableResult
    mutating func duplicate(_ id: Int) -> Int? {
        guard let (parentId, index) = root.parent(of: id), let original = node(id) else { return nil }
        var copy = original
        renumber(&copy)
        let newId = copy.id
        root.update(parentId) { node in
            if case .group(let match, var children) = node.content {
                children.insert(copy, at: index + 1)
                node.content = .group(match, children)
            }
        }
        return newId
    }

    mutating func delete(_ id: Int) {
        guard let (parentId, index) = root.parent(of: id) else { return }
        root.update(parentId) { node in
            if case .group(let match, var children) = node.content {
                children.remove(at: index)
                node.content = .group(match, children)
            }
        }
    }

    /// Moves the node up (-1) or down (+1) among its siblings; false at either end.
    @discardableResult
    mutating func move(_ id: Int, by offset: Int) -> Bool {
        guard let (parentId, index) = root.parent(of: id) else { return false }
        var moved = false
        root.update(parentId) { node in
            if case .group(let match, var children) = node.content, children.indices.contains(index + offset) {
                children.swapAt(index, index + offset)
                node.content = .group(match, children)
                moved = true
            }
        }
        return moved
    }

    mutating func setMatch(_ match: SearchFilterCondition, of groupId: Int) {
        root.update(groupId) { node in
            if case .group(_, let children) = node.content { node.content = .group(match, children) }
        }
    }

    mutating func updateCondition(_ id: Int, _ change: (inout FilterCondition) -> Void) {
        root.update(id) { node in
            if case .condition(var condition) = node.content {
                change(&condition)
                node.content = .condition(condition)
            }
        }
    }

    private mutating func append(_ child: FilterNode, to groupId: Int) -> Bool {
        var added = false
        root.update(groupId) { node in
            if case .group(let match, var children) = node.content {
                children.append(child)
                node.content = .group(match, children)
                added = true
            }
        }
        return added
    }

    private mutating func takeId() -> Int {
        defer { nextId += 1 }
        return nextId
    }

    private mutating func renumber(_ node: inout FilterNode) {
        node = FilterNode(id: takeId(), content: node.content)
        if case .group(let match, var children) = node.content {
            for index in children.indices { renumber(&children[index]) }
            node.content = .group(match, children)
        }
    }

    // MARK: Problems and the wire

    /// What keeps the tree from being applied, per node, in the user's words.
    var problems: [(id: Int, message: String)] {
        var found: [(Int, String)] = []
        func visit(_ node: FilterNode) {
            switch node.content {
            case .condition(let condition):
                if let problem = condition.problem { found.append((node.id, problem)) }
            case .group(_, let children):
                if children.isEmpty, node.id != root.id { found.append((node.id, "Add a condition to this group, or delete it.")) }
                children.forEach(visit)
            }
        }
        visit(root)
        if segmentTags == nil { found.append((root.id, "Name every tag, or remove the ones without a name.")) }
        return found
    }

    /// What the list shows for the tree, its filters and segmentation tags; nil while there are
    /// problems (a refused mix of values and metadata throws).
    func applicable() throws -> (filters: SearchFilters, segment: InstancePager.Segment)? {
        guard let filters = try filters(), let tags = segmentTags else { return nil }
        return (filters, InstancePager.Segment(tags: tags, matchesAll: matchesAllTags))
    }

    /// The filters to search with: nil while there are problems, empty for an empty tree. A root
    /// of one node sends that node alone.
    func filters() throws -> SearchFilters? {
        guard problems.isEmpty else { return nil }
        guard case .group(let match, let children) = root.content, !children.isEmpty else { return SearchFilters() }
        func wire(_ node: FilterNode) -> SearchFilter {
            switch node.content {
            case .condition(let condition): return condition.comparison ?? .group(.and, [])
            case .group(let match, let children): return .group(match, children.map(wire))
            }
        }
        let tree = children.count == 1 ? wire(children[0]) : .group(match, children.map(wire))
        let metadata = (children.count == 1 ? children[0] : root).conditions.map { $0.field?.isMetadata ?? false }
        return try SearchFilters(combined: tree, metadataComparisons: metadata)
    }

    /// The tree for `filters`, its fields looked up among `fields` (the module's and the
    /// metadata); a condition on a field not found there keeps its name and is marked missing.
    init(_ filters: SearchFilters, fields: [FilterField], maxDepth: Int = 16) {
        self.init(maxDepth: maxDepth)
        guard let (tree, metadataFlags) = filters.combined else { return }
        var flags = metadataFlags.makeIterator()
        func node(_ filter: SearchFilter) -> FilterNode {
            switch filter {
            case .group(let match, let operands):
                return FilterNode(id: takeId(), content: .group(match, operands.map(node)))
            case .comparison(let operation, let property, let value, let type):
                let isMetadata = flags.next() ?? false
                let known = fields.first { $0.name == property && $0.isMetadata == isMetadata }
                let field = known ?? FilterField(name: property, kind: FieldKind.inferred(from: value), isMetadata: isMetadata)
                var condition = FilterCondition(field: field, isMissing: known == nil)
                switch (operation, value) {
                case (.equal, .null) where type == "null": condition.operation = .isEmpty
                case (.notEqual, .null) where type == "null": condition.operation = .isNotEmpty
                default:
                    condition.operation = FilterOperator.allCases.first { $0.wire == operation && !$0.takesNoValue }
                    condition.value = FilterValue(wire: value, type: type, kind: field.kind)
                }
                return FilterNode(id: takeId(), content: .condition(condition))
            }
        }
        if case .group(let match, let operands) = tree {
            root = FilterNode(id: 0, content: .group(match, operands.map(node)))
        } else {
            root = FilterNode(id: 0, content: .group(.and, [node(tree)]))
        }
    }
}

/// A name = value pair of the Tags section (an empty value matches the name alone).
struct FilterTag: Equatable, Sendable {
    var name = ""
    var value = ""
}

extension FilterNode {
    /// The conditions under the node, in order (pre-order, as the wire tree lists comparisons).
    var conditions: [FilterCondition] {
        switch content {
        case .condition(let condition): [condition]
        case .group(_, let children): children.flatMap(\.conditions)
        }
    }

    func find(_ id: Int) -> FilterNode? {
        if self.id == id { return self }
        guard case .group(_, let children) = content else { return nil }
        return children.lazy.compactMap { $0.find(id) }.first
    }

    func depth(of id: Int, at level: Int) -> Int? {
        if self.id == id { return level }
        guard case .group(_, let children) = content else { return nil }
        return children.lazy.compactMap { $0.depth(of: id, at: level + 1) }.first
    }

    /// The group holding the node, and the node's index in it.
    func parent(of id: Int) -> (Int, Int)? {
        guard case .group(_, let children) = content else { return nil }
        if let index = children.firstIndex(where: { $0.id == id }) { return (self.id, index) }
        return children.lazy.compactMap { $0.parent(of: id) }.first
    }

    mutating func update(_ id: Int, _ change: (inout FilterNode) -> Void) {
        if self.id == id { return change(&self) }
        guard case .group(let match, var children) = content else { return }
        for index in children.indices { children[index].update(id, change) }
        content = .group(match, children)
    }
}
