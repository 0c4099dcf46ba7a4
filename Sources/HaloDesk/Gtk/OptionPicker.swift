import CGtk

/// A menu button showing the chosen option, whose popover lists the options as a column of flat
/// buttons: each is a push button named by its label, so the keyboard (Tab, arrows, Enter) and
/// assistive technologies reach every option. A list longer than `searchThreshold` gets a search
/// entry on top that narrows it as the user types (Enter picks the first one left).
@MainActor
final class OptionPicker {
    let button: MenuButton
    /// The option buttons, in the order of `options` (tests click them as a user would).
    private(set) var optionButtons: [Button] = []
    let options: [String]
    /// The search entry of a long list (nil for a short one).
    let searchEntry: Editable?
    private let popover: Popover
    /// Hears the index chosen (a host may set it after init to capture itself weakly).
    var onPick: @MainActor (Int) -> Void
    /// What the button is for ("Field"); its accessible name adds the option shown.
    var purpose: String {
        didSet { button.setAccessibleLabel("\(purpose): \(button.label)") }
    }

    static let searchThreshold = 8

    /// `selected` is the option shown (nil: `placeholder`); `onPick` hears the index chosen.
    init(
        options: [String], selected: Int?, placeholder: String, accessibleLabel: String,
        onPick: @escaping @MainActor (Int) -> Void
    ) {
        self.options = options
        self.onPick = onPick
        purpose = accessibleLabel
        let column = Box(vertical: true, spacing: 0)
        let list = Box(vertical: true, spacing: 0)
        if options.count > Self.searchThreshold {
            let search = Editable(sinking: UnsafeMutableRawPointer(gtk_search_entry_new()))
            search.setAccessibleLabel("Search \(accessibleLabel.lowercased())")
            gtk_widget_set_margin_bottom(search.widget, 6)
            column.append(search)
            searchEntry = search
        } else {
            searchEntry = nil
        }
        let scroller = ScrolledWindow(child: list)
        gtk_scrolled_window_set_propagate_natural_height(OpaquePointer(scroller.raw), 1)
        gtk_scrolled_window_set_max_content_height(OpaquePointer(scroller.raw), 360)
        column.append(scroller)
        popover = Popover(child: column)
        let shown = selected.map { options[$0] } ?? placeholder
        button = MenuButton(label: shown, accessibleLabel: "\(accessibleLabel): \(shown)", popover: popover)
        for (index, option) in options.enumerated() {
            let optionButton = Button(label: option)
            optionButton.addCSSClass("flat")
            if let label = gtk_button_get_child(halo_button(optionButton.raw)) { gtk_label_set_xalign(OpaquePointer(label), 0) }
            if index == selected { optionButton.addCSSClass("accent") }
            optionButton.onClicked(weakly(self) { $0.pick(index) })
            list.append(optionButton)
            optionButtons.append(optionButton)
        }
        searchEntry?.onSearchChanged(weakly(self) { $0.narrow() })
        searchEntry?.on(
            "activate",
            weakly(self) { picker in
                if let first = picker.optionButtons.firstIndex(where: \.isVisible) { picker.pick(first) }
            })
        if let searchEntry { popover.onMap { [weak searchEntry] in searchEntry?.grabFocus() } }
    }

    /// Chooses the option with this label, as clicking it would; false when there is none.
    @discardableResult
    func pick(_ label: String) -> Bool {
        guard let index = options.firstIndex(of: label) else { return false }
        optionButtons[index].click()
        return true
    }

    /// Shows `label` instead of an option (nothing chosen), as the placeholder is shown.
    func showUnchosen(_ label: String) {
        button.label = label
        button.setAccessibleLabel("\(purpose): \(label)")
    }

    private func pick(_ index: Int) {
        popover.popdown()
        button.label = options[index]
        button.setAccessibleLabel("\(purpose): \(options[index])")
        onPick(index)
    }

    private func narrow() {
        let text = searchEntry?.text.lowercased() ?? ""
        for (option, optionButton) in zip(options, optionButtons) {
            optionButton.isVisible = text.isEmpty || option.lowercased().contains(text)
        }
    }
}
