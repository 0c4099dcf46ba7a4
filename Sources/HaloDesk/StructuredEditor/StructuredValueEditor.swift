import CAdw
import CGtk
import HaloServices

/// One JSON value edited without writing JSON: a tree of rows (member name or item position, a
/// type badge that is also the type picker, the value's input, a ⋮ menu), or the same value as
/// text (Tree / Text at the top). The pocket window and the instance editor's object and list
/// fields use it.
///
/// The draft lives with the host (its undo history may hold more than this value, as the pocket
/// window's does): the editor reads it through `draft` and changes it only through `edit`. The
/// rows are rebuilt after a structural edit (values are small) and the keyboard goes back to the
/// same control of the same node; typing changes the draft without a rebuild.
@MainActor
final class StructuredValueEditor {
    /// The controls of one node on screen (tests drive them as a user would).
    struct NodeControls {
        let row: Box
        let type: JSONType
        var keyEntry: Editable?
        let typePicker: OptionPicker
        var valueEntry: Editable?
        var valueSwitch: Switch?
        var addButton: Button?
        var menu: NodeMenu?
        let problemLabel: Label

        /// Names every control after the node's path ("data.tags[2]"), as a screen reader reads
        /// them; called again when a member above is renamed.
        @MainActor func name(path: String) {
            keyEntry?.setAccessibleLabel("Name of \(path)")
            typePicker.purpose = "Type of \(path)"
            (valueEntry ?? valueSwitch)?.setAccessibleLabel("Value of \(path)")
            addButton?.setAccessibleLabel("\(type == .array ? "Add an item to" : "Add a member to") \(path)")
            menu?.button.setAccessibleLabel("Actions of \(path)")
            menu?.button.tooltip = "Move, duplicate or remove \(path)"
        }
    }

    enum Role: Hashable { case key, type, value, add, menu }

    let widget: Box
    let treeToggle: Button
    let textToggle: Button
    let textView: TextView
    /// Where the text is wrong (line, column and what), under the text.
    let textStatusLabel: Label
    private let treeBox: Box
    private let stack: Stack

    /// The host's draft, and the one way to change it (`typing`: edits with the same key in a row
    /// are one undo step).
    private let read: @MainActor () -> JSONDraft
    private let write: @MainActor (_ typing: String?, _ change: (inout JSONDraft) -> Void) -> Void
    /// After every change the editor made (the host updates its meter, Save, undo buttons).
    var onChanged: (@MainActor () -> Void)?
    /// The name the root is read out by ("data"), the start of every node's accessible path.
    let rootName: String

    private(set) var nodeControls: [Int: NodeControls] = [:]
    private var pendingFocus: (Int, Role)?
    /// Text that is not JSON yet (the tree cannot show it): the host keeps Save disabled.
    private(set) var textProblem: JSONTextProblem?
    private(set) var showsText = false
    private var isRendering = false

    init(
        rootName: String, read: @escaping @MainActor () -> JSONDraft,
        edit: @escaping @MainActor (_ typing: String?, _ change: (inout JSONDraft) -> Void) -> Void
    ) {
        self.rootName = rootName
        self.read = read
        self.write = edit
        widget = Box(vertical: true, spacing: 8)
        let modes = Box(vertical: false)
        modes.addCSSClass("linked")
        treeToggle = Button(sinking: UnsafeMutableRawPointer(gtk_toggle_button_new_with_label("Tree")))
        textToggle = Button(sinking: UnsafeMutableRawPointer(gtk_toggle_button_new_with_label("Text")))
        gtk_toggle_button_set_group(
            textToggle.raw.assumingMemoryBound(to: GtkToggleButton.self), treeToggle.raw.assumingMemoryBound(to: GtkToggleButton.self))
        gtk_toggle_button_set_active(treeToggle.raw.assumingMemoryBound(to: GtkToggleButton.self), 1)
        treeToggle.setAccessibleLabel("Edit \(rootName) as a tree")
        textToggle.setAccessibleLabel("Edit \(rootName) as JSON text")
        modes.append(treeToggle)
        modes.append(textToggle)
        gtk_widget_set_halign(modes.widget, GTK_ALIGN_START)
        widget.append(modes)

        treeBox = Box(vertical: true, spacing: 0)
        treeBox.addCSSClass("card")
        treeBox.addCSSClass("json-tree")
        textView = TextView(accessibleLabel: "\(rootName) as JSON text", monospace: true)
        gtk_widget_set_vexpand(textView.widget, 1)
        textStatusLabel = Label("", classes: ["caption", "error"], wrap: true)
        textStatusLabel.isVisible = false
        let textPage = Box(vertical: true, spacing: 6)
        textPage.append(textView)
        textPage.append(textStatusLabel)
        stack = Stack(sinking: UnsafeMutableRawPointer(gtk_stack_new()))
        stack.addPage(treeBox, named: "tree")
        stack.addPage(textPage, named: "text")
        widget.append(stack)

        treeToggle.onClicked(weakly(self) { $0.showTree() })
        textToggle.onClicked(weakly(self) { $0.showText() })
        textView.onChanged(weakly(self) { $0.textEdited() })
        installShortcuts()
        render()
    }

    var draft: JSONDraft { read() }

    // MARK: Modes

    /// Back to the tree; text that is not JSON keeps the text shown, with its problem.
    func showTree() {
        guard showsText else { return }
        if let textProblem {
            gtk_toggle_button_set_active(textToggle.raw.assumingMemoryBound(to: GtkToggleButton.self), 1)
            textStatusLabel.show("Fix the text to see it as a tree. \(textProblem)")
            return
        }
        showsText = false
        stack.visiblePage = "tree"
        render()
    }

    func showText() {
        guard !showsText else { return }
        showsText = true
        isRendering = true
        textView.text = draft.text
        isRendering = false
        textView.clearErrorMark()
        textStatusLabel.show(nil)
        stack.visiblePage = "text"
        gtk_toggle_button_set_active(textToggle.raw.assumingMemoryBound(to: GtkToggleButton.self), 1)
    }

    private func textEdited() {
        guard !isRendering else { return }
        let text = textView.text
        textView.clearErrorMark()
        var problem: JSONTextProblem?
        write("text") { draft in
            do throws(JSONTextProblem) { try draft.replace(withText: text) } catch { problem = error }
        }
        textProblem = problem
        if let problem {
            textView.markError(atCharacter: problem.characterOffset + 1)
            textStatusLabel.show(problem.description)
        } else {
            textStatusLabel.show(nil)
        }
        onChanged?()
    }

    // MARK: Building

    /// Shows the draft as it is now (after the host's undo, redo or load).
    func render() {
        if showsText {
            isRendering = true
            if textProblem == nil, textView.text != draft.text { textView.text = draft.text }
            isRendering = false
            return
        }
        isRendering = true
        defer { isRendering = false }
        treeBox.removeAll()
        nodeControls = [:]
        addRows(for: draft.root, key: nil, index: nil, path: rootName, depth: 0, siblings: 1)
        showProblems()
        if let (id, role) = pendingFocus {
            pendingFocus = nil
            focus(id, role)
        }
    }

    private func addRows(for node: JSONDraftNode, key: String?, index: Int?, path: String, depth: Int, siblings: Int) {
        let outer = Box(vertical: true, spacing: 2)
        outer.addCSSClass("json-row")
        gtk_widget_set_margin_start(outer.widget, gint(8 + depth * 16))
        let row = Box(vertical: false, spacing: 6)
        outer.append(row)
        var keyEntry: Editable?
        if let key {
            let entry = Editable.entry(accessibleLabel: "Name", placeholder: "Name")
            entry.text = key
            gtk_editable_set_width_chars(halo_editable(entry.raw), 8)
            entry.onChanged { [weak self, weak entry] in
                guard let self, let entry, !self.isRendering else { return }
                let text = entry.text
                self.edit(typing: "key-\(node.id)") { $0.rename(node.id, to: text) }
                self.namePaths(from: self.draft.root, path: self.rootName)
            }
            row.append(entry)
            keyEntry = entry
        } else if let index {
            let label = Label("\(index)", classes: ["dim-label", "numeric"])
            gtk_widget_set_size_request(label.widget, 24, -1)
            row.append(label)
        }  // The root has no label: the field or group around the editor names it.
        let types = JSONType.allCases
        let picker = OptionPicker(
            options: types.map(\.label), selected: types.firstIndex(of: node.type), placeholder: node.type.label,
            accessibleLabel: "Type"
        ) { [weak self] picked in
            self?.restructure { draft in
                draft.changeType(of: node.id, to: types[picked])
                return (node.id, .type)
            }
        }
        picker.button.addCSSClass("json-type")
        picker.button.isSensitive = !(node.id == draft.root.id && draft.fixedRootType != nil)
        row.append(picker.button)
        let problem = Label("", classes: ["caption", "error"], wrap: true)
        problem.isVisible = false
        var controls = NodeControls(row: outer, type: node.type, keyEntry: keyEntry, typePicker: picker, problemLabel: problem)
        addValueInput(for: node, to: row, controls: &controls)
        if let parentPosition = draft.root.parent(of: node.id) {
            let position = parentPosition.1
            let menu = NodeMenu(
                kind: "value", tooltip: "Move, duplicate or remove",
                entries: [
                    .init(label: "Move Up", shortcut: "Alt+↑", isEnabled: position > 0, action: weakly(self) { $0.move(node.id, by: -1) }),
                    .init(
                        label: "Move Down", shortcut: "Alt+↓", isEnabled: position + 1 < siblings,
                        action: weakly(self) { $0.move(node.id, by: 1) }),
                    .init(label: "Duplicate", shortcut: "Ctrl+D", action: weakly(self) { $0.duplicate(node.id) }),
                    .init(label: "Remove", shortcut: "Ctrl+Delete", action: weakly(self) { $0.remove(node.id) }),
                ])
            row.append(menu.button)
            controls.menu = menu
        }
        outer.append(problem)
        treeBox.append(outer)
        controls.name(path: path)
        nodeControls[node.id] = controls

        let children = Self.children(of: node, path: path)
        for child in children {
            addRows(for: child.node, key: child.key, index: child.index, path: child.path, depth: depth + 1, siblings: children.count)
        }
    }

    /// The members or items of `node`, with their names or positions and accessible paths.
    private static func children(
        of node: JSONDraftNode, path: String
    ) -> [(node: JSONDraftNode, key: String?, index: Int?, path: String)] {
        switch node.content {
        case .array(let items): items.enumerated().map { ($1, nil, $0, "\(path)[\($0)]") }
        case .object(let members): members.map { ($0.value, $0.key, nil, "\(path).\($0.key)") }
        default: []
        }
    }

    /// Names the controls of `node` and of what it holds after their paths, as they are now
    /// (after a member was renamed, without rebuilding the row being typed in).
    private func namePaths(from node: JSONDraftNode, path: String) {
        nodeControls[node.id]?.name(path: path)
        for child in Self.children(of: node, path: path) { namePaths(from: child.node, path: child.path) }
    }

    private func addValueInput(for node: JSONDraftNode, to row: Box, controls: inout NodeControls) {
        switch node.content {
        case .string(let text), .number(let text):
            let isNumber = node.type == .number
            let entry = Editable.entry(accessibleLabel: "Value", placeholder: isNumber ? "A number, e.g. 12.5" : "Text")
            entry.text = text
            entry.expand(horizontally: true)
            entry.onChanged { [weak self, weak entry] in
                guard let self, let entry, !self.isRendering else { return }
                let typed = entry.text
                self.edit(typing: "value-\(node.id)") { $0.set(node.id, to: isNumber ? .number(typed) : .string(typed)) }
            }
            row.append(entry)
            controls.valueEntry = entry
        case .bool(let flag):
            let toggle = Switch(accessibleLabel: "Value")
            toggle.isOn = flag
            toggle.centerVertically()
            toggle.onToggled { [weak self, weak toggle] in
                guard let self, let toggle, !self.isRendering else { return }
                let on = toggle.isOn
                self.edit(typing: nil) { $0.set(node.id, to: .bool(on)) }
            }
            row.append(toggle)
            controls.valueSwitch = toggle
            row.append(Self.spacer())
        case .null:
            row.append(Label("null", classes: ["dim-label"]))
            row.append(Self.spacer())
        case .array, .object:
            // A container: how much it holds, and its Add button.
            let (count, one, many, add) =
                node.type == .array
                ? (node.children.count, "item", "items", "Add Item")
                : (node.children.count, "member", "members", "Add Member")
            row.append(Label(count == 1 ? "1 \(one)" : "\(count) \(many)", classes: ["dim-label"]))
            row.append(Self.spacer())
            let button = Button.iconAndLabel("list-add-symbolic", label: add)
            button.onClicked(weakly(self) { editor in editor.addChild(to: node.id) })
            row.append(button)
            controls.addButton = button
        }
    }

    private static func spacer() -> Widget {
        let spacer = Label("")
        spacer.expand(horizontally: true)
        return spacer
    }

    // MARK: Edits (menus, shortcuts, tests)

    /// Adds a member (named "key", "key 2", …) or an item (a string) and puts the keyboard on it.
    func addChild(to containerId: Int) {
        restructure { draft in
            let added = draft.addMember(to: containerId) ?? draft.addItem(to: containerId)
            return added.map { id in (id, draft.root.key(of: id) != nil ? .key : .value) }
        }
    }

    func move(_ id: Int, by offset: Int) {
        let role = focusedTarget()?.1 ?? .menu
        restructure { draft in
            draft.move(id, by: offset)
            return (id, role)
        }
    }

    func duplicate(_ id: Int) {
        restructure { draft in draft.duplicate(id).map { ($0, .menu) } }
    }

    /// Removes the node; the keyboard goes to the next sibling, else the previous, else the parent's Add.
    func remove(_ id: Int) {
        guard let (parent, index) = draft.root.parent(of: id) else { return }
        let siblings = parent.children
        let neighbour = index + 1 < siblings.count ? siblings[index + 1].id : index > 0 ? siblings[index - 1].id : nil
        restructure { draft in
            draft.remove(id)
            return neighbour.map { ($0, .menu) } ?? (parent.id, .add)
        }
    }

    /// An edit that leaves the rows as they are (typing, a switch); keys typed into one input
    /// (the same `typing`) are one undo step.
    private func edit(typing: String?, _ change: (inout JSONDraft) -> Void) {
        write(typing, change)
        showProblems()
        onChanged?()
    }

    /// A structural edit: the rows are rebuilt and the keyboard goes to the control `change` names.
    private func restructure(_ change: (inout JSONDraft) -> (Int, Role)?) {
        var focus: (Int, Role)?
        write(nil) { focus = change(&$0) }
        pendingFocus = focus
        render()
        onChanged?()
    }

    /// Each node's problem under its row (a number that is not one, a repeated name).
    private func showProblems() {
        let problems = Dictionary(draft.problems.map { ($0.node, $0.description) }, uniquingKeysWith: { first, _ in first })
        for (id, controls) in nodeControls {
            controls.problemLabel.show(problems[id])
            let entry = controls.keyEntry ?? controls.valueEntry
            if problems[id] != nil { entry?.addCSSClass("error") } else { entry?.removeCSSClass("error") }
        }
    }

    // MARK: Keyboard

    private func installShortcuts() {
        let group = GObjectRef(adopting: UnsafeMutableRawPointer(g_simple_action_group_new()))
        Actions.add("move-up", to: group, handler: weakly(self) { editor in editor.focusedNode.map { editor.move($0, by: -1) } })
        Actions.add("move-down", to: group, handler: weakly(self) { editor in editor.focusedNode.map { editor.move($0, by: 1) } })
        Actions.add("duplicate", to: group, handler: weakly(self) { editor in editor.focusedNode.map(editor.duplicate) })
        Actions.add("remove", to: group, handler: weakly(self) { editor in editor.focusedNode.map(editor.remove) })
        gtk_widget_insert_action_group(widget.widget, "json", OpaquePointer(group.raw))
        Actions.addShortcuts(
            [
                ("<Alt>Up", "json.move-up"), ("<Alt>Down", "json.move-down"), ("<Control>d", "json.duplicate"),
                ("<Control>Delete", "json.remove"),
            ], to: widget)
    }

    /// The node holding the keyboard focus (nil: none, or the root).
    private var focusedNode: Int? {
        guard let (id, _) = focusedTarget(), id != draft.root.id else { return nil }
        return id
    }

    private func focusedTarget() -> (Int, Role)? {
        guard let root = gtk_widget_get_root(widget.widget), var current = gtk_root_get_focus(root) else { return nil }
        while true {
            for (id, controls) in nodeControls {
                for role in [Role.key, .type, .value, .add, .menu] where widget(of: controls, role)?.widget == current {
                    return (id, role)
                }
                if controls.row.widget == current { return (id, .menu) }
            }
            guard let parent = gtk_widget_get_parent(current) else { return nil }
            current = parent
        }
    }

    func focus(_ id: Int, _ role: Role) {
        guard let controls = nodeControls[id] else { return }
        (widget(of: controls, role) ?? controls.menu?.button ?? controls.typePicker.button)?.grabFocus()
    }

    private func widget(of controls: NodeControls, _ role: Role) -> Widget? {
        switch role {
        case .key: controls.keyEntry
        case .type: controls.typePicker.button
        case .value: controls.valueEntry ?? controls.valueSwitch
        case .add: controls.addButton
        case .menu: controls.menu?.button
        }
    }
}
