import CGtk
import Foundation
import HaloServices

/// A date and time input: a button showing the date, whose popover has a calendar and the time
/// of day (`HH:mm`, midnight when left empty), in the user's time zone. The filter builder's date
/// conditions and the instance editor's publish and expiry dates use it.
///
/// The value is epoch milliseconds, as HALO stores dates (PROTOCOL §1.5). A value shown and not
/// picked again is never rewritten (it keeps its seconds and milliseconds); a picked one is the
/// minute chosen, read in the user's time zone at that moment (`DisplayFormat.localDate`).
@MainActor
final class DateInput {
    /// The value picked, or nil with what is wrong when the time typed is not a time of day.
    typealias Change = @MainActor (_ milliseconds: Double?, _ problem: String?) -> Void

    let widget: Widget
    let button: MenuButton
    let calendar: CalendarView
    let timeEntry: Editable
    /// The value shown (nil: none, the button says `emptyLabel`).
    private(set) var milliseconds: Double?
    private let purpose: String
    private let emptyLabel: String
    /// Hears what the user picks (not what `show` sets).
    var onChange: Change
    /// Set while the calendar and entry are filled in code: their signals are not the user's.
    private var isShowing = false

    init(purpose: String, milliseconds: Double?, emptyLabel: String = "Choose a date…", onChange: @escaping Change) {
        self.purpose = purpose
        self.emptyLabel = emptyLabel
        self.onChange = onChange
        calendar = CalendarView()
        calendar.setAccessibleLabel("\(purpose): day")
        timeEntry = Editable.entry(accessibleLabel: "\(purpose): time of day", placeholder: "00:00")
        gtk_editable_set_width_chars(halo_editable(timeEntry.raw), 6)
        let timeRow = Box(vertical: false, spacing: 6)
        timeRow.append(Label("Time", classes: ["dim-label"]))
        timeRow.append(timeEntry)
        let column = Box(vertical: true, spacing: 6)
        column.append(calendar)
        column.append(timeRow)
        let popover = Popover(child: column)
        button = MenuButton(label: emptyLabel, accessibleLabel: purpose, popover: popover)
        widget = button
        show(milliseconds)
        calendar.onDaySelected(weakly(self) { $0.report() })
        timeEntry.onChanged(weakly(self) { $0.report() })
        timeEntry.on("activate", weakly(self) { $0.button.popdown() })
    }

    /// Shows `milliseconds` (nil: nothing chosen; the calendar shows today) without reporting a change.
    func show(_ milliseconds: Double?) {
        isShowing = true
        defer { isShowing = false }
        self.milliseconds = milliseconds
        let parts = DisplayFormat.localParts(milliseconds.map { Date(timeIntervalSince1970: $0 / 1000) } ?? Date())
        calendar.day = (parts.year, parts.month, parts.day)
        timeEntry.text = milliseconds == nil ? "" : String(format: "%02d:%02d", parts.hour, parts.minute)
        timeEntry.removeCSSClass("error")
        showLabel()
    }

    /// Picks a day and a time as the user would in the popover.
    func choose(year: Int, month: Int, day: Int, time: String = "") {
        timeEntry.text = time
        calendar.day = (year, month, day)
        report()
    }

    private func report() {
        guard !isShowing else { return }
        let (year, month, day) = calendar.day
        guard let date = DisplayFormat.localDate(year: year, month: month, day: day, time: timeEntry.text) else {
            timeEntry.addCSSClass("error")
            onChange(nil, "Write the time of day as HH:mm, like 14:30.")
            return
        }
        timeEntry.removeCSSClass("error")
        milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        showLabel()
        onChange(milliseconds, nil)
    }

    private func showLabel() {
        let shown = milliseconds.map { FieldValueText.display(.number($0), kind: .date) } ?? emptyLabel
        button.label = shown
        button.setAccessibleLabel("\(purpose): \(shown)")
    }
}
