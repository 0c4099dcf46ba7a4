import CAdw
import CGtk
import Foundation
import HaloServices

/// The filter builder of the open module (`Resources/ui/filter-builder.ui`): the tree of groups
/// and conditions (`FilterBuilderWindow+Tree.swift`), the Tags section, the same filter as text
/// in two-way sync, the request the server receives, a live count while editing, Apply and Clear,
/// and undo / redo of every edit. It edits a `FilterTree`; the SDK's `SearchFilters` is the one
/// copy of the search language.
///
/// The window hides when closed and keeps its draft: the workspace presents it again.
@MainActor
final class FilterBuilderWindow {
    let window: Window
    let windowTitle: WindowTitle
    let applyButton: Button
    let clearButton: Button
    let undoButton: Button
    let redoButton: Button
    /// Above the tree: why the filter cannot be applied as a whole, or the server's refusal.
    let problemLabel: Label
    let textView: TextView
    let textStatusLabel: Label
    let requestView: TextView
    let copyRequestButton: Button
    let addTagButton: Button
    let matchAllTagsSwitch: Switch
    let treeBox: Box
    let tagsGroup: PreferencesGroup
    let matchAllTagsRow: Widget
    /// Saved views (`FilterBuilderWindow+Views.swift`): save as new, update the view opened.
    let viewsGroup: PreferencesGroup
    let saveViewRow: EntryRow
    let updateViewRow: ActionRow
    let updateViewButton: Button
    let viewProblemLabel: Label
    /// The saved view this draft was opened from (its Update row is shown).
    var openedView: SavedView?
    /// Saves the tree as a new view with this name, or the tree into the opened view.
    var onSaveView: (@MainActor (String, FilterTree) -> Void)?
    var onUpdateView: (@MainActor (SavedView, FilterTree) -> Void)?

    let moduleName: String
    let fields: [FilterField]
    /// The tree being edited, with its undo and redo (edited only through the window's methods).
    var history: EditHistory<FilterTree>
    var tree: FilterTree { history.current }

    /// Controls of each node on screen, by node id (rebuilt with the tree).
    var nodeControls: [Int: NodeControls] = [:]
    /// Tag rows on screen, in the order of `tree.tags`.
    var tagRows: [TagRow] = []
    /// The node whose control should take the keyboard after the next rebuild.
    var pendingFocus: FocusTarget?

    /// The live count's answer: matching instances, and whether the copy on this computer gave it.
    private(set) var liveCount: (total: Int, offline: Bool)?
    /// Live counts answered (tests wait on it).
    private(set) var completedCounts = 0
    private var countGeneration = 0
    private var textGeneration = 0
    private var isWritingText = false

    let instanceSearch: InstanceSearch
    private let baseQuery: SearchQuery
    private let search: @MainActor (SearchQuery) async throws(HaloError) -> PaginatedContentInstances
    private let onApply: @MainActor (FilterTree) -> Void
    private var actions: GObjectRef?

    /// - Parameters:
    ///   - baseQuery: the module's query without filters (the request view and the live count add them).
    ///   - search: runs a search online or from the cache, as the list does.
    ///   - onApply: shows the tree's filters in the list.
    init(
        moduleName: String, fields: [FilterField], tree: FilterTree, baseQuery: SearchQuery, parent: Widget,
        search: @escaping @MainActor (SearchQuery) async throws(HaloError) -> PaginatedContentInstances,
        instanceSearch: @escaping InstanceSearch, onApply: @escaping @MainActor (FilterTree) -> Void
    ) throws {
        let builder = try Builder(ui: "filter-builder")
        window = try builder.object("filter_builder_window")
        windowTitle = try builder.object("window_title")
        applyButton = try builder.object("apply_button")
        clearButton = try builder.object("clear_button")
        undoButton = try builder.object("undo_button")
        redoButton = try builder.object("redo_button")
        problemLabel = try builder.object("problem_label")
        textView = try builder.object("text_view")
        textStatusLabel = try builder.object("text_status_label")
        requestView = try builder.object("request_view")
        copyRequestButton = try builder.object("copy_request_button")
        addTagButton = try builder.object("add_tag_button")
        matchAllTagsSwitch = try builder.object("match_all_tags_switch")
        treeBox = try builder.object("tree_box")
        tagsGroup = try builder.object("tags_group")
        matchAllTagsRow = try builder.object("match_all_tags_row")
        viewsGroup = try builder.object("views_group")
        saveViewRow = try builder.object("save_view_row")
        updateViewRow = try builder.object("update_view_row")
        updateViewButton = try builder.object("update_view_button")
        viewProblemLabel = try builder.object("view_problem_label")
        self.moduleName = moduleName
        self.fields = fields
        self.baseQuery = baseQuery
        self.search = search
        self.instanceSearch = instanceSearch
        self.onApply = onApply
        history = EditHistory<FilterTree>(tree)
        window.title = "Filter \(moduleName)"
        windowTitle.title = "Filter \(moduleName)"
        gtk_window_set_hide_on_close(window.window, 1)
        window.setTransient(for: parent)
        installActions()
        wireEvents()
        render()
    }

    func present() { window.present() }

    // MARK: Editing

    /// Applies an edit to the tree. A structural edit rebuilds the tree on screen (the keyboard
    /// goes to `focus`, else stays where it was); a typing edit leaves the inputs alone.
    func edit(typing: String? = nil, focus: FocusTarget? = nil, _ change: (inout FilterTree) -> Void) {
        let before = tree
        history.edit(typing: typing) { change(&$0) }
        guard tree != before else { return }
        if typing == nil {
            pendingFocus = focus ?? focusedTarget()
            render()
        } else {
            treeChanged()
        }
    }

    func undo() {
        guard history.canUndo else { return }
        pendingFocus = focusedTarget()
        history.undo()
        render()
    }

    func redo() {
        guard history.canRedo else { return }
        pendingFocus = focusedTarget()
        history.redo()
        render()
    }

    /// Shows the tree's filters in the list.
    func apply() {
        guard (try? tree.applicable()) != nil else { return }
        onApply(tree)
    }

    /// Empties the builder and shows the whole module (undo brings the conditions back).
    func clear() {
        edit { $0 = FilterTree(maxDepth: $0.maxDepth) }
        apply()
    }

    /// Rebuilds the tree and the tags on screen, then everything that follows from the tree.
    func render() {
        // Benchmarks: a rebuild of the window on screen (an edit, undo, redo) to its next frame.
        if BenchmarkMarks.isEnabled, window.isMapped {
            BenchmarkMarks.mark("filter-builder rebuild open")
            BenchmarkMarks.markNextPaint(of: window, "filter-builder rebuild painted")
        }
        renderTree()
        renderTags()
        treeChanged()
    }

    /// What follows from the tree: buttons, problems, the text form, the request and the count.
    func treeChanged() {
        undoButton.isSensitive = history.canUndo
        redoButton.isSensitive = history.canRedo
        showConditionProblems()
        let applicable: (filters: SearchFilters, segment: InstancePager.Segment)?
        do {
            applicable = try tree.applicable()
            problemLabel.isVisible = false
        } catch {
            applicable = nil
            problemLabel.text = (error as? HaloError)?.sentence ?? "\(error)"
            problemLabel.isVisible = true
        }
        applyButton.isSensitive = applicable != nil
        viewsChanged(isApplicable: applicable != nil)
        applyButton.tooltip =
            applicable != nil ? "Show the matching instances in the list (Ctrl+Enter)" : "Complete or remove the marked conditions first"
        textStatusLabel.removeCSSClass("error")
        if let (filters, segment) = applicable {
            writeText(filters.expression)
            textStatusLabel.text = ""
            textStatusLabel.isVisible = false
            // The list's query (first page aside).
            let request = baseQuery.filters(filters).segment(segment)
            requestView.text = request.body().indentedText
            countMatches(request)
        } else {
            textStatusLabel.text = "The text follows once every condition is complete."
            textStatusLabel.isVisible = true
            windowTitle.subtitle = "Complete the conditions to count the matches"
            countGeneration += 1  // a count still on its way is for another tree
            liveCount = nil
        }
    }

    // MARK: The text form

    private func writeText(_ text: String) {
        guard text != textView.text, !textView.hasFocus else { return }
        isWritingText = true
        textView.text = text
        isWritingText = false
        textView.clearErrorMark()
    }

    /// The user edited the text: once typing pauses, a valid text becomes the tree; an invalid
    /// one is marked at its character and the tree keeps its last valid state.
    private func textEdited() {
        guard !isWritingText else { return }
        textGeneration += 1
        let asked = textGeneration
        Task { @MainActor in
            try? await Task.sleep(for: .milliseconds(300))
            guard asked == self.textGeneration else { return }
            self.readText()
        }
    }

    /// Reads the text form into the tree now (tests; also after the pause).
    func readText() {
        let text = textView.text
        textView.clearErrorMark()
        do {
            let filters = try SearchFilters.parse(expression: text)
            textStatusLabel.removeCSSClass("error")
            textStatusLabel.isVisible = false
            var next = FilterTree(filters, fields: fields, maxDepth: tree.maxDepth)
            next.tags = tree.tags
            next.matchesAllTags = tree.matchesAllTags
            if let current = try? tree.filters(), current == filters { return }  // the same filter, spelled otherwise
            history.edit { $0 = next }
            pendingFocus = nil
            renderTree()
            treeChanged()
        } catch {
            let haloError = error as? HaloError
            textStatusLabel.text = haloError?.sentence ?? "\(error)"
            textStatusLabel.addCSSClass("error")
            textStatusLabel.isVisible = true
            if let character = haloError?.filterErrorCharacter(in: text) { textView.markError(atCharacter: character) }
        }
    }

    // MARK: The live count

    /// Counts the matches once edits pause (offline from the copy on this computer).
    private func countMatches(_ query: SearchQuery) {
        countGeneration += 1
        let asked = countGeneration
        windowTitle.subtitle = "Counting…"
        Task { @MainActor in
            try? await Task.sleep(for: .milliseconds(250))
            guard asked == self.countGeneration else { return }
            do throws(HaloError) {
                let answer = try await self.search(query.pagination(page: 1, limit: 1))
                guard asked == self.countGeneration else { return }
                let total = answer.paginationInfo.totalItems
                let offline = answer.source != .server
                self.liveCount = (total, offline)
                self.windowTitle.subtitle =
                    "\(DisplayFormat.count(total)) match\(total == 1 ? "" : "es")" + (offline ? " · from the offline copy" : "")
                self.problemLabel.isVisible = false
            } catch {
                guard asked == self.countGeneration else { return }
                self.liveCount = nil
                self.windowTitle.subtitle = "Could not count the matches"
                if case .network = error {
                    self.problemLabel.text = "Could not count the matches: \(error.sentence)"
                } else {
                    // The list would be refused the same search: Apply waits for a change.
                    self.problemLabel.text = "The search was refused: \(error.sentence)"
                    self.applyButton.isSensitive = false
                    self.applyButton.tooltip = "The server refused this filter; change it first"
                }
                self.problemLabel.isVisible = true
            }
            self.completedCounts += 1
        }
    }

    // MARK: Wiring

    private func wireEvents() {
        applyButton.onClicked(weakly(self) { $0.apply() })
        wireViewEvents()
        clearButton.onClicked(weakly(self) { $0.clear() })
        undoButton.onClicked(weakly(self) { $0.undo() })
        redoButton.onClicked(weakly(self) { $0.redo() })
        textView.onChanged(weakly(self) { $0.textEdited() })
        copyRequestButton.onClicked(weakly(self) { view in view.copyRequestButton.clipboardText = view.requestView.text })
        addTagButton.onClicked(
            weakly(self) { view in
                view.edit(focus: .tag(view.tree.tags.count)) { $0.tags.append(FilterTag()) }
            })
        matchAllTagsSwitch.onToggled(
            weakly(self) { view in
                let on = view.matchAllTagsSwitch.isOn
                if on != view.tree.matchesAllTags { view.edit { $0.matchesAllTags = on } }
            })
    }

    /// The window's actions (shortcuts in filter-builder.ui act on the focused condition).
    private func installActions() {
        let group = GObjectRef(adopting: UnsafeMutableRawPointer(g_simple_action_group_new()))
        Actions.add("undo", to: group, handler: weakly(self) { $0.undo() })
        Actions.add("redo", to: group, handler: weakly(self) { $0.redo() })
        Actions.add("apply", to: group, handler: weakly(self) { $0.apply() })
        Actions.add("move-up", to: group, handler: weakly(self) { view in view.focusedNode.map { view.move($0, by: -1) } })
        Actions.add("move-down", to: group, handler: weakly(self) { view in view.focusedNode.map { view.move($0, by: 1) } })
        Actions.add("duplicate", to: group, handler: weakly(self) { view in view.focusedNode.map(view.duplicate) })
        Actions.add("delete", to: group, handler: weakly(self) { view in view.focusedNode.map(view.delete) })
        gtk_widget_insert_action_group(window.widget, "filter", OpaquePointer(group.raw))
        actions = group
    }
}
