import CAdw
import CGtk

// Wrappers for the boxed-list rows and groups of libadwaita 1.2, for the windows to come (filter
// builder, structured editors, pocket, module design). Each declares its GType for `Builder`.

/// An AdwPreferencesGroup: a titled group of rows.
@MainActor
final class PreferencesGroup: Widget {
    override class var gType: GType { adw_preferences_group_get_type() }

    convenience init(title: String, description: String? = nil) {
        self.init(sinking: UnsafeMutableRawPointer(adw_preferences_group_new()))
        self.title = title
        if let description { groupDescription = description }
    }

    private var group: UnsafeMutablePointer<AdwPreferencesGroup> { raw.assumingMemoryBound(to: AdwPreferencesGroup.self) }

    var title: String {
        get { swiftString(adw_preferences_group_get_title(group)) ?? "" }
        set { adw_preferences_group_set_title(group, newValue) }
    }

    var groupDescription: String {
        get { swiftString(adw_preferences_group_get_description(group)) ?? "" }
        set { adw_preferences_group_set_description(group, newValue) }
    }

    func add(_ row: Widget) { adw_preferences_group_add(group, row.widget) }
    func remove(_ row: Widget) { adw_preferences_group_remove(group, row.widget) }
}

/// An AdwActionRow: a title, a subtitle and suffix widgets; activatable.
@MainActor
final class ActionRow: Widget {
    override class var gType: GType { adw_action_row_get_type() }

    /// A row showing `title` and `subtitle` as written: plain text, not Pango markup (which is
    /// libadwaita's default), since rows made in code show names and values users typed.
    convenience init(title: String, subtitle: String? = nil) {
        self.init(sinking: UnsafeMutableRawPointer(adw_action_row_new()))
        adw_preferences_row_set_use_markup(preferencesRow, 0)
        self.title = title
        if let subtitle { self.subtitle = subtitle }
    }

    private var row: UnsafeMutablePointer<AdwActionRow> { raw.assumingMemoryBound(to: AdwActionRow.self) }
    private var preferencesRow: UnsafeMutablePointer<AdwPreferencesRow> { raw.assumingMemoryBound(to: AdwPreferencesRow.self) }

    var title: String {
        get { swiftString(adw_preferences_row_get_title(preferencesRow)) ?? "" }
        set { adw_preferences_row_set_title(preferencesRow, newValue) }
    }

    var subtitle: String {
        get { swiftString(adw_action_row_get_subtitle(row)) ?? "" }
        set { adw_action_row_set_subtitle(row, newValue) }
    }

    func addSuffix(_ widget: Widget) { adw_action_row_add_suffix(row, widget.widget) }
    func addPrefix(_ widget: Widget) { adw_action_row_add_prefix(row, widget.widget) }

    /// Makes the row activatable through `widget` (clicking the row activates it).
    func setActivatableWidget(_ widget: Widget?) { adw_action_row_set_activatable_widget(row, widget?.widget) }

    /// `activated`: the row was activated (click, Enter).
    @discardableResult
    func onActivated(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("activated", handler) }
}

/// An AdwExpanderRow: a row that reveals nested rows.
@MainActor
final class ExpanderRow: Widget {
    override class var gType: GType { adw_expander_row_get_type() }

    /// A row titled `title` as written (plain text, as `ActionRow(title:subtitle:)`).
    convenience init(title: String) {
        self.init(sinking: UnsafeMutableRawPointer(adw_expander_row_new()))
        adw_preferences_row_set_use_markup(raw.assumingMemoryBound(to: AdwPreferencesRow.self), 0)
        adw_preferences_row_set_title(raw.assumingMemoryBound(to: AdwPreferencesRow.self), title)
    }

    private var row: UnsafeMutablePointer<AdwExpanderRow> { raw.assumingMemoryBound(to: AdwExpanderRow.self) }

    var isExpanded: Bool {
        get { adw_expander_row_get_expanded(row) != 0 }
        set { adw_expander_row_set_expanded(row, newValue ? 1 : 0) }
    }

    func addRow(_ child: Widget) { adw_expander_row_add_row(row, child.widget) }

    /// `notify::expanded`: the row opened or closed.
    @discardableResult
    func onExpandedChanged(_ handler: @escaping @MainActor (Bool) -> Void) -> SignalConnection {
        onPointer("notify::expanded") { [unowned self] _ in handler(self.isExpanded) }
    }
}

/// An AdwEntryRow (libadwaita 1.2): a row that is a text field. Its text is `asEditable.text`.
@MainActor
final class EntryRow: Widget {
    override class var gType: GType { adw_entry_row_get_type() }

    convenience init(title: String) {
        self.init(sinking: UnsafeMutableRawPointer(adw_entry_row_new()))
        adw_preferences_row_set_title(raw.assumingMemoryBound(to: AdwPreferencesRow.self), title)
    }

    /// The row as the GtkEditable it implements.
    var asEditable: Editable { Editable(retaining: raw) }

    /// Puts `widget` at the end of the row (after the text).
    func addSuffix(_ widget: Widget) {
        adw_entry_row_add_suffix(raw.assumingMemoryBound(to: AdwEntryRow.self), widget.widget)
    }

    /// An Add button at the end of the row; `onAdd` makes it and Enter run the same action.
    /// libadwaita 1.2's own apply button (`show-apply-button`) is not exposed to assistive
    /// technology, so it is not used.
    func addButton(iconName: String = "list-add-symbolic", accessibleLabel: String, tooltip: String) -> Button {
        let button = Button(iconName: iconName, accessibleLabel: accessibleLabel, tooltip: tooltip)
        button.addCSSClass("flat")
        button.centerVertically()
        addSuffix(button)
        return button
    }

    /// Runs `add` on Enter and on `button` (made by `addButton`).
    func onAdd(_ button: Button, _ add: @escaping @MainActor () -> Void) {
        button.onClicked(add)
        onEntryActivated(add)
    }

    /// `changed` (GtkEditable): the text changed.
    @discardableResult
    func onChanged(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("changed", handler) }

    /// `entry-activated`: Enter was pressed.
    @discardableResult
    func onEntryActivated(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("entry-activated", handler) }

    /// Presses Enter in the row, as the keyboard would (tests).
    func activate() { emit("entry-activated") }

    /// `apply`: the row's apply button was pressed, or Enter with `show-apply-button` set.
    @discardableResult
    func onApply(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("apply", handler) }

    /// Applies as the apply button would (tests).
    func apply() { emit("apply") }
}
