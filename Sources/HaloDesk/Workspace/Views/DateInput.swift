import CGtk
import Foundation
import HaloServices

/// A date and time input: a button showing the date, whose popover has a calendar, the day typed
/// (`yyyy-MM-dd`, for the keyboard and assistive technology: GtkCalendar's days are not exposed
/// to them) and the time of day (`HH:mm`, midnight when left empty), in the user's time zone.
/// The filter builder's date conditions, the instance editor's date fields and its publish and
/// expiry dates use it.
///
/// The value is epoch milliseconds, as HALO stores dates (PROTOCOL §1.5). A value shown and not
/// picked again is never rewritten (it keeps its seconds and milliseconds); a picked one is the
/// minute chosen, read in the user's time zone at that moment (`DisplayFormat.localDate`).
/// With `.day` precision (date-only fields) there is no time of day: the value is 00:00 UTC of
/// the day picked, and the day shown is the same in every time zone.
@MainActor
final class DateInput {
    enum Precision { case minute, day }

    /// The value picked, or nil with what is wrong when the time typed is not a time of day.
    typealias Change = @MainActor (_ milliseconds: Double?, _ problem: String?) -> Void

    let widget: Widget
    let button: MenuButton
    let calendar: CalendarView
    /// The day as `yyyy-MM-dd`; follows the calendar and moves it.
    let dayEntry: Editable
    let timeEntry: Editable
    /// The value shown (nil: none, the button says `emptyLabel`).
    private(set) var milliseconds: Double?
    private let purpose: String
    private let emptyLabel: String
    let precision: Precision
    /// Hears what the user picks (not what `show` sets).
    var onChange: Change
    /// Set while the calendar and entry are filled in code: their signals are not the user's.
    private var isShowing = false

    init(
        purpose: String, milliseconds: Double?, precision: Precision = .minute, emptyLabel: String = "Choose a date…",
        onChange: @escaping Change
    ) {
        self.purpose = purpose
        self.precision = precision
        self.emptyLabel = emptyLabel
        self.onChange = onChange
        calendar = CalendarView()
        calendar.setAccessibleLabel("\(purpose): day")
        dayEntry = Editable.entry(accessibleLabel: "\(purpose): date", placeholder: "yyyy-mm-dd")
        gtk_editable_set_width_chars(halo_editable(dayEntry.raw), 11)
        timeEntry = Editable.entry(accessibleLabel: "\(purpose): time of day", placeholder: "00:00")
        gtk_editable_set_width_chars(halo_editable(timeEntry.raw), 6)
        let typedRow = Box(vertical: false, spacing: 6)
        typedRow.append(Label("Date", classes: ["dim-label"]))
        typedRow.append(dayEntry)
        let timeLabel = Label("Time", classes: ["dim-label"])
        typedRow.append(timeLabel)
        typedRow.append(timeEntry)
        let column = Box(vertical: true, spacing: 6)
        column.append(calendar)
        column.append(typedRow)
        timeLabel.isVisible = precision == .minute
        timeEntry.isVisible = precision == .minute
        let popover = Popover(child: column)
        button = MenuButton(label: emptyLabel, accessibleLabel: purpose, popover: popover)
        widget = button
        show(milliseconds)
        calendar.onDaySelected(weakly(self) { $0.calendarMoved() })
        dayEntry.onChanged(weakly(self) { $0.dayTyped() })
        timeEntry.onChanged(weakly(self) { $0.report() })
        for entry in [dayEntry, timeEntry] { entry.on("activate", weakly(self) { $0.button.popdown() }) }
    }

    /// Shows `milliseconds` (nil: nothing chosen; the calendar shows today) without reporting a change.
    func show(_ milliseconds: Double?) {
        isShowing = true
        defer { isShowing = false }
        self.milliseconds = milliseconds
        let parts = DisplayFormat.localParts(milliseconds.map { Date(timeIntervalSince1970: $0 / 1000) } ?? Date())
        if precision == .day, let milliseconds {
            let day = DisplayFormat.utcDay(milliseconds).split(separator: "-").compactMap { Int($0) }
            if day.count == 3 { calendar.day = (day[0], day[1], day[2]) }
        } else {
            calendar.day = (parts.year, parts.month, parts.day)
        }
        timeEntry.text = milliseconds == nil ? "" : String(format: "%02d:%02d", parts.hour, parts.minute)
        dayEntry.text = milliseconds == nil ? "" : Self.dayText(calendar.day)
        timeEntry.removeCSSClass("error")
        dayEntry.removeCSSClass("error")
        showLabel()
    }

    /// Picks a day and a time as the user would in the popover.
    func choose(year: Int, month: Int, day: Int, time: String = "") {
        timeEntry.text = time
        calendar.day = (year, month, day)
        report()
    }

    /// The calendar's day, written into the day entry (without reporting it twice).
    private func calendarMoved() {
        guard !isShowing else { return }
        isShowing = true
        dayEntry.text = Self.dayText(calendar.day)
        dayEntry.removeCSSClass("error")
        isShowing = false
        report()
    }

    /// A day typed: moves the calendar to it, or says how to write it.
    private func dayTyped() {
        guard !isShowing else { return }
        let text = dayEntry.text.trimmingCharacters(in: .whitespaces)
        guard DisplayFormat.utcMidnight(ofDay: text) != nil else {
            dayEntry.addCSSClass("error")
            report()  // says how to write it
            return
        }
        dayEntry.removeCSSClass("error")
        let numbers = text.split(separator: "-").compactMap { Int($0) }
        isShowing = true
        calendar.day = (numbers[0], numbers[1], numbers[2])
        isShowing = false
        report()
    }

    private static let dayProblem = "Write the date as yyyy-mm-dd, like 2026-03-29."

    private static func dayText(_ day: (year: Int, month: Int, day: Int)) -> String {
        String(format: "%04d-%02d-%02d", day.year, day.month, day.day)
    }

    private func report() {
        guard !isShowing else { return }
        if dayEntry.hasCSSClass("error") {
            onChange(nil, Self.dayProblem)
            return
        }
        let (year, month, day) = calendar.day
        if precision == .day {
            milliseconds = DisplayFormat.utcMidnight(ofDay: Self.dayText(calendar.day))
            showLabel()
            onChange(milliseconds, nil)
            return
        }
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
        let shown = milliseconds.map { FieldValueText.display(.number($0), kind: precision == .day ? .day : .date) } ?? emptyLabel
        button.label = shown
        button.setAccessibleLabel("\(purpose): \(shown)")
    }
}
