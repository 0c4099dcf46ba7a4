import CGtk

/// A GtkToggleButton with a label: one of several choices that can be on together. (Not a
/// GtkCheckButton: GTK 4.8 gives check buttons no accessible action, so assistive technology
/// could not tick them.)
@MainActor
final class ToggleButton: Widget {
    override class var gType: GType { gtk_toggle_button_get_type() }

    convenience init(label: String) {
        self.init(sinking: UnsafeMutableRawPointer(gtk_toggle_button_new_with_label(label)))
    }

    private var toggle: UnsafeMutablePointer<GtkToggleButton> { raw.assumingMemoryBound(to: GtkToggleButton.self) }

    var isActive: Bool {
        get { gtk_toggle_button_get_active(toggle) != 0 }
        set { gtk_toggle_button_set_active(toggle, newValue ? 1 : 0) }
    }

    /// The user (or code) turned it on or off.
    @discardableResult
    func onToggled(_ handler: @escaping @MainActor () -> Void) -> SignalConnection { on("toggled", handler) }
}

/// A row of chips that wraps: each chip shows a value, may open it (clicking its name) and has
/// its own remove button (✕). The filter builder's "is one of" values and the instance editor's
/// related instances use it.
@MainActor
final class ChipBox {
    /// One chip on screen (tests click its parts as a user would).
    struct Chip {
        let value: String
        /// The name; a button when the chip opens something, else a plain label.
        let nameButton: Button?
        let nameLabel: Label?
        let removeButton: Button
    }

    let widget: Widget
    private(set) var chips: [Chip] = []
    /// What a chip is named by its value (names arrive after the ids, e.g. instance names).
    private var names: [String: String] = [:]
    private var values: [String] = []
    private let onOpen: (@MainActor (String) -> Void)?
    /// Hears a ✕ (a host may set it after init to capture itself weakly).
    var onRemove: @MainActor (String) -> Void
    private let openVerb: String

    /// `onOpen` (nil: names are not clickable) opens a value; `openVerb` starts its accessible
    /// name ("Open"); `onRemove` hears a ✕.
    init(
        accessibleLabel: String, openVerb: String = "Open", onOpen: (@MainActor (String) -> Void)? = nil,
        onRemove: @escaping @MainActor (String) -> Void
    ) {
        self.onOpen = onOpen
        self.onRemove = onRemove
        self.openVerb = openVerb
        widget = Widget(sinking: UnsafeMutableRawPointer(gtk_flow_box_new()))
        gtk_flow_box_set_selection_mode(OpaquePointer(widget.raw), GTK_SELECTION_NONE)
        gtk_flow_box_set_max_children_per_line(OpaquePointer(widget.raw), 12)
        gtk_flow_box_set_row_spacing(OpaquePointer(widget.raw), 4)
        gtk_flow_box_set_column_spacing(OpaquePointer(widget.raw), 4)
        widget.setAccessibleLabel(accessibleLabel)
    }

    /// Shows `values` in order, each by its name when known.
    func show(_ values: [String]) {
        self.values = values
        rebuild()
    }

    /// Names values (e.g. instance ids) once they are known; the chips stay (and keep the focus).
    func name(_ names: [String: String]) {
        self.names.merge(names) { _, new in new }
        for chip in chips {
            guard let name = names[chip.value] else { continue }
            chip.nameButton?.label = name
            chip.nameButton?.setAccessibleLabel("\(openVerb) \(name)")
            chip.nameButton?.tooltip = "\(openVerb) \(name)"
            chip.nameLabel?.text = name
            chip.removeButton.setAccessibleLabel("Remove \(name)")
            chip.removeButton.tooltip = "Remove \(name)"
        }
    }

    /// The name a value is shown by.
    func shownName(of value: String) -> String { names[value] ?? value }

    private func rebuild() {
        while let child = gtk_widget_get_first_child(widget.widget) {
            gtk_flow_box_remove(OpaquePointer(widget.raw), child)
        }
        chips = values.map { value in
            let shown = shownName(of: value)
            let chip = Box(vertical: false)
            chip.addCSSClass("linked")
            var nameButton: Button?
            var nameLabel: Label?
            if let onOpen {
                let button = Button(label: shown)
                button.setAccessibleLabel("\(openVerb) \(shown)")
                button.tooltip = "\(openVerb) \(shown)"
                button.onClicked { onOpen(value) }
                chip.append(button)
                nameButton = button
            } else {
                let label = Label(shown)
                label.addCSSClass("chip-label")
                chip.append(label)
                nameLabel = label
            }
            let remove = Button(iconName: "window-close-symbolic", accessibleLabel: "Remove \(shown)", tooltip: "Remove \(shown)")
            remove.onClicked { [weak self] in self?.onRemove(value) }
            chip.append(remove)
            gtk_flow_box_insert(OpaquePointer(widget.raw), chip.widget, -1)
            return Chip(value: value, nameButton: nameButton, nameLabel: nameLabel, removeButton: remove)
        }
        widget.isVisible = !values.isEmpty
    }
}
