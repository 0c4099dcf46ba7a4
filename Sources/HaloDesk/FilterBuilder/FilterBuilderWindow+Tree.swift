import CAdw
import CGtk
import HaloServices

/// The tree on screen: the root group ("Match all / any of the following"), its conditions
/// (field → operator → value, each with its problem in words) and nested groups as indented
/// cards, each node with a menu (move up / down, duplicate, delete — also Alt+↑/↓, Ctrl+D and
/// Ctrl+Delete on the focused node). The whole tree is rebuilt after a structural edit (trees
/// are small) and the keyboard goes back to the same control of the same node.
extension FilterBuilderWindow {
    /// A control of a node the keyboard can be given back to after a rebuild.
    enum Role: Hashable {
        case field, operation, value, menu, matchAll, matchAny, addCondition, addGroup
    }

    enum FocusTarget: Hashable {
        case node(Int, Role)
        case tag(Int)
    }

    /// The controls of one node on screen (tests drive them as a user would).
    struct NodeControls {
        let container: Widget
        var fieldPicker: OptionPicker?
        var operatorPicker: OptionPicker?
        var valueEditor: FilterValueEditor?
        var problemLabel: Label?
        var menuButton: MenuButton?
        /// The node menu's items by label ("Move Up", "Move Down", "Duplicate", "Delete").
        var menuItems: [String: Button] = [:]
        var matchAll: Button?
        var matchAny: Button?
        var addCondition: Button?
        var addGroup: Button?

        func widget(for role: Role) -> Widget? {
            switch role {
            case .field: fieldPicker?.button
            case .operation: operatorPicker?.button
            case .value: valueEditor?.focusTarget
            case .menu: menuButton
            case .matchAll: matchAll
            case .matchAny: matchAny
            case .addCondition: addCondition
            case .addGroup: addGroup
            }
        }
    }

    /// One row of the Tags section.
    struct TagRow {
        let container: Widget
        let name: Editable
        let value: Editable
        let remove: Button
    }

    // MARK: Node operations (menus, shortcuts, tests)

    func addCondition(to groupId: Int) {
        var added: Int?
        history.edit { added = $0.addCondition(to: groupId) }
        show(focus: added.map { .node($0, .field) })
    }

    /// A new group starts with one condition (an empty group cannot be applied).
    func addGroup(to groupId: Int) {
        var condition: Int?
        history.edit { tree in
            guard let group = tree.addGroup(to: groupId, match: .or) else { return }
            condition = tree.addCondition(to: group)
        }
        show(focus: condition.map { .node($0, .field) })
    }

    func duplicate(_ id: Int) {
        var copy: Int?
        history.edit { copy = $0.duplicate(id) }
        show(focus: copy.map { .node($0, tree.node($0).map(Self.isGroup) == true ? .menu : .field) })
    }

    /// Deletes the node; the keyboard goes to the next node, else the previous, else Add Condition.
    func delete(_ id: Int) {
        guard let (parentId, index) = tree.root.parent(of: id), case .group(_, let siblings)? = tree.node(parentId)?.content else { return }
        let neighbour = index + 1 < siblings.count ? siblings[index + 1] : index > 0 ? siblings[index - 1] : nil
        history.edit { $0.delete(id) }
        show(focus: neighbour.map { .node($0.id, .menu) } ?? .node(parentId, .addCondition))
    }

    func move(_ id: Int, by offset: Int) {
        let focus = focusedTarget() ?? .node(id, .menu)
        history.edit { $0.move(id, by: offset) }
        show(focus: focus)
    }

    func setMatch(_ match: SearchFilterCondition, of groupId: Int) {
        guard case .group(let current, _)? = tree.node(groupId)?.content, current != match else { return }
        history.edit { $0.setMatch(match, of: groupId) }
        show(focus: .node(groupId, match == .and ? .matchAll : .matchAny))
    }

    func pickField(_ index: Int, for id: Int) {
        history.edit { $0.updateCondition(id) { $0.setField(fields[index]) } }
        show(focus: .node(id, .operation))
    }

    func pickOperator(_ operation: FilterOperator, for id: Int) {
        history.edit { $0.updateCondition(id) { $0.setOperator(operation) } }
        show(focus: .node(id, operation.takesNoValue ? .menu : .value))
    }

    /// The node holding the keyboard focus (nil: none, or the root group).
    var focusedNode: Int? {
        guard case .node(let id, _)? = focusedTarget(), id != tree.root.id else { return nil }
        return id
    }

    private func show(focus: FocusTarget?) {
        pendingFocus = focus
        render()
    }

    private static func isGroup(_ node: FilterNode) -> Bool { if case .group = node.content { true } else { false } }

    // MARK: Building

    func renderTree() {
        treeBox.removeAll()
        nodeControls = [:]
        treeBox.append(groupView(tree.root, depth: 1))
        if let target = pendingFocus {
            pendingFocus = nil
            focus(target)
        }
    }

    func renderTags() {
        tagRows.forEach { tagsGroup.remove($0.container) }
        tagRows = tree.tags.enumerated().map { index, tag in tagRow(tag, at: index) }
        tagRows.forEach { tagsGroup.add($0.container) }
        matchAllTagsRow.isVisible = tree.tags.count > 1
        matchAllTagsSwitch.isOn = tree.matchesAllTags
        if case .tag(let index)? = pendingFocus, tagRows.indices.contains(index) {
            pendingFocus = nil
            tagRows[index].name.grabFocus()
        }
    }

    private func groupView(_ node: FilterNode, depth: Int) -> Widget {
        guard case .group(let match, let children) = node.content else { return Box(vertical: true) }
        let isRoot = node.id == tree.root.id
        let box = Box(vertical: true, spacing: 12)
        if !isRoot {
            box.addCSSClass("card")
            box.addCSSClass("filter-group")
        }
        var controls = NodeControls(container: box)

        let header = Box(vertical: false, spacing: 6)
        header.append(Label("Match", classes: []))
        let toggles = Box(vertical: false)
        toggles.addCSSClass("linked")
        let all = Button(sinking: UnsafeMutableRawPointer(gtk_toggle_button_new_with_label("all")))
        let any = Button(sinking: UnsafeMutableRawPointer(gtk_toggle_button_new_with_label("any")))
        gtk_toggle_button_set_group(
            any.raw.assumingMemoryBound(to: GtkToggleButton.self), all.raw.assumingMemoryBound(to: GtkToggleButton.self))
        gtk_toggle_button_set_active((match == .and ? all : any).raw.assumingMemoryBound(to: GtkToggleButton.self), 1)
        all.setAccessibleLabel("Match all of the following")
        any.setAccessibleLabel("Match any of the following")
        all.onClicked(weakly(self) { $0.setMatch(.and, of: node.id) })
        any.onClicked(weakly(self) { $0.setMatch(.or, of: node.id) })
        toggles.append(all)
        toggles.append(any)
        header.append(toggles)
        // Wraps rather than ellipsizes: a nested group on a narrow window has little room.
        let trailer = Label("of the following", classes: [], wrap: true)
        trailer.expand(horizontally: true)
        header.append(trailer)
        controls.matchAll = all
        controls.matchAny = any
        if !isRoot { addMenu(for: node.id, to: header, controls: &controls, kind: "group") }
        box.append(header)

        if isRoot, children.isEmpty {
            let empty = Label(
                "No conditions: every instance of \(moduleName) is listed. Add a condition to narrow the list.", classes: ["dim-label"],
                wrap: true)
            box.append(empty)
        }
        if !isRoot, children.isEmpty {
            let problem = Label("Add a condition to this group, or delete it.", classes: ["error", "caption"], wrap: true)
            controls.problemLabel = problem
            box.append(problem)
        }
        for child in children {
            switch child.content {
            case .condition(let condition): box.append(conditionView(child.id, condition))
            case .group: box.append(groupView(child, depth: depth + 1))
            }
        }

        let footer = Box(vertical: false, spacing: 6)
        let addCondition = Button.iconAndLabel("list-add-symbolic", label: "Add _Condition")
        addCondition.setAccessibleLabel(isRoot ? "Add a condition" : "Add a condition to this group")
        addCondition.onClicked(weakly(self) { $0.addCondition(to: node.id) })
        let addGroup = Button.iconAndLabel("list-add-symbolic", label: "Add _Group")
        addGroup.setAccessibleLabel(isRoot ? "Add a group" : "Add a group inside this group")
        addGroup.onClicked(weakly(self) { $0.addGroup(to: node.id) })
        addGroup.isSensitive = tree.canAddGroup(to: node.id)
        addGroup.tooltip =
            addGroup.isSensitive
            ? "A group of conditions matched together (any of them, by default)"
            : "Groups nest at most \(tree.maxDepth) levels deep, conditions included (the server's limit)"
        footer.append(addCondition)
        footer.append(addGroup)
        box.append(footer)
        controls.addCondition = addCondition
        controls.addGroup = addGroup
        nodeControls[node.id] = controls
        return box
    }

    private func conditionView(_ id: Int, _ condition: FilterCondition) -> Widget {
        let box = Box(vertical: true, spacing: 8)
        box.addCSSClass("card")
        box.addCSSClass("filter-condition")
        var controls = NodeControls(container: box)

        let line = Box(vertical: false, spacing: 6)
        let fieldLabels = fields.map(\.label)
        let fieldIndex = condition.field.flatMap { field in fields.firstIndex(of: field) }
        let fieldPicker = OptionPicker(
            options: fieldLabels, selected: fieldIndex, placeholder: condition.field?.label ?? "Choose a field…",
            accessibleLabel: "Field"
        ) { [weak self] index in self?.pickField(index, for: id) }
        line.append(fieldPicker.button)
        controls.fieldPicker = fieldPicker
        if let field = condition.field, !condition.isMissing {
            let offered = FilterOperator.offered(for: field.kind)
            let operatorPicker = OptionPicker(
                options: offered.map(\.label), selected: condition.operation.flatMap { offered.firstIndex(of: $0) },
                placeholder: "Choose…", accessibleLabel: "Comparison"
            ) { [weak self] index in self?.pickOperator(offered[index], for: id) }
            line.append(operatorPicker.button)
            controls.operatorPicker = operatorPicker
        }
        let spacer = Label("", classes: [])
        spacer.expand(horizontally: true)
        line.append(spacer)
        addMenu(for: id, to: line, controls: &controls, kind: "condition")
        box.append(line)

        let editor = FilterValueEditor(condition: condition, search: instanceSearch) { [weak self] value, problem in
            self?.edit(typing: "value-\(id)") { tree in
                tree.updateCondition(id) {
                    $0.value = value
                    $0.inputProblem = problem
                    $0.clearedReason = nil
                }
            }
        }
        if let editor {
            box.append(editor.widget)
            controls.valueEditor = editor
        }
        let problem = Label("", classes: ["caption"], wrap: true)
        box.append(problem)
        controls.problemLabel = problem
        nodeControls[id] = controls
        return box
    }

    /// The node's ⋮ menu: Move Up, Move Down, Duplicate, Delete.
    private func addMenu(for id: Int, to line: Box, controls: inout NodeControls, kind: String) {
        let position = tree.root.parent(of: id)
        let siblings: Int =
            if let (parent, _) = position, case .group(_, let children)? = tree.node(parent)?.content { children.count } else { 1 }
        let index = position?.1 ?? 0
        let menu = NodeMenu(
            kind: kind, tooltip: "Move, duplicate or delete this \(kind)",
            entries: [
                .init(label: "Move Up", shortcut: "Alt+↑", isEnabled: index > 0, action: weakly(self) { $0.move(id, by: -1) }),
                .init(label: "Move Down", shortcut: "Alt+↓", isEnabled: index + 1 < siblings, action: weakly(self) { $0.move(id, by: 1) }),
                .init(label: "Duplicate", shortcut: "Ctrl+D", action: weakly(self) { $0.duplicate(id) }),
                .init(label: "Delete", shortcut: "Ctrl+Delete", action: weakly(self) { $0.delete(id) }),
            ])
        line.append(menu.button)
        controls.menuButton = menu.button
        controls.menuItems = menu.items
    }

    private func tagRow(_ tag: FilterTag, at index: Int) -> TagRow {
        let row = Box(vertical: false, spacing: 6)
        row.setMargins(8)
        let name = Editable.entry(accessibleLabel: "Tag \(index + 1) name", placeholder: "Name")
        name.text = tag.name
        name.expand(horizontally: true)
        let value = Editable.entry(accessibleLabel: "Tag \(index + 1) value", placeholder: "Value (optional)")
        value.text = tag.value
        value.expand(horizontally: true)
        let remove = Button(iconName: "user-trash-symbolic", accessibleLabel: "Remove tag \(index + 1)", tooltip: "Remove this tag")
        // Weak: an entry's own handler must not keep the entry alive.
        name.onChanged { [weak self, weak name] in
            guard let self, let text = name?.text else { return }
            self.edit(typing: "tag-name-\(index)") { $0.tags[index].name = text }
        }
        value.onChanged { [weak self, weak value] in
            guard let self, let text = value?.text else { return }
            self.edit(typing: "tag-value-\(index)") { $0.tags[index].value = text }
        }
        remove.onClicked(
            weakly(self) { view in
                view.edit { $0.tags.remove(at: index) }
                view.addTagButton.grabFocus()
            })
        row.append(name)
        row.append(Label("=", classes: ["dim-label"]))
        row.append(value)
        row.append(remove)
        return TagRow(container: row, name: name, value: value, remove: remove)
    }

    // MARK: Problems and focus

    /// Each condition's problem under it: in red when something entered is wrong, dimmed while
    /// it is only incomplete; a value just cleared by a field or operator change says so.
    func showConditionProblems() {
        for (id, controls) in nodeControls {
            guard case .condition(let condition)? = tree.node(id)?.content, let label = controls.problemLabel else { continue }
            let isWrong =
                condition.inputProblem != nil || condition.isMissing
                || (condition.operation == .contains && condition.value != .none)
            let message = condition.problem ?? condition.clearedReason
            label.text = message ?? ""
            label.isVisible = message != nil
            if isWrong && condition.problem != nil {
                label.removeCSSClass("dim-label")
                label.addCSSClass("error")
            } else {
                label.removeCSSClass("error")
                label.addCSSClass("dim-label")
            }
        }
    }

    func focus(_ target: FocusTarget) {
        switch target {
        case .node(let id, let role):
            let controls = nodeControls[id]
            (controls?.widget(for: role) ?? controls?.widget(for: .field) ?? controls?.widget(for: .menu))?.grabFocus()
        case .tag(let index):
            if tagRows.indices.contains(index) { tagRows[index].name.grabFocus() }
        }
    }

    /// The control holding the keyboard focus, as a node and role (nil: none of the tree's).
    func focusedTarget() -> FocusTarget? {
        guard let root = gtk_widget_get_root(window.widget), var current = gtk_root_get_focus(root) else { return nil }
        let roles: [Role] = [.field, .operation, .value, .menu, .matchAll, .matchAny, .addCondition, .addGroup]
        while true {
            for (id, controls) in nodeControls {
                for role in roles where controls.widget(for: role)?.widget == current { return .node(id, role) }
                if controls.container.widget == current { return .node(id, .menu) }
            }
            guard let parent = gtk_widget_get_parent(current) else { return nil }
            current = parent
        }
    }
}
