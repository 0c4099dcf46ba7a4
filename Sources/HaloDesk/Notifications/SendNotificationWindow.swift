import CAdw
import CGtk
import Foundation
import HaloServices

/// The Send Notification window (main menu → Send Notification; `send-notification.ui`): an
/// editor writes a notification (title, text, the instance it opens; the bytes left of the 4,096 a
/// notification carries are counted as they type, and Send waits until it fits), picks who gets it (every
/// device, devices with segmentation tags, devices by alias) and when (now or later), sees it as
/// the desktop will show it, and sends it through HALO's send API. Below, the notifications sent
/// and scheduled, with how many devices received, opened and dismissed each (refreshed while the
/// window is open); a scheduled one can be withdrawn until it goes out.
@MainActor
final class SendNotificationWindow {
    enum Audience: Int { case everyone, tagged, aliases }

    let window: Window
    let titleRow: EntryRow
    let bodyRow: EntryRow
    let audienceRow: ComboRow
    let audienceDetailRow: EntryRow
    let timeRow: ComboRow
    let dateInput: DateInput
    let linkPicker: InstancePicker
    let sendButton: Button
    let problemLabel: Label
    /// The bytes left of what a notification can carry (`PushDraft.payloadByteLimit`).
    let sizeLabel: Label
    let previewTitle: Label
    let previewBody: Label
    let previewAudience: Label
    private let dateRow: Widget
    private let historyGroup: PreferencesGroup
    private let toastOverlay: Widget
    private let clearLinkButton: Button
    private let core: CoreManager
    /// The instance picked for the notification to open.
    private(set) var link: InstanceChoice?
    private var sendOn: Double?
    /// The history as last read, and its rows (by schedule id).
    private(set) var history: [PushSchedule] = []
    private(set) var historyRows: [String: ActionRow] = [:]
    /// The Withdraw button of each scheduled one.
    private(set) var withdrawButtons: [String: Button] = [:]
    private var emptyHistoryRow: ActionRow?
    /// Sends and history reads finished, successful or not (tests wait on it).
    private(set) var completedRequests = 0
    private var refresher: Task<Void, Never>?

    /// How often the counts are read again while the window is open.
    static let refreshInterval: Duration = .seconds(5)

    init(parent: Widget, core: CoreManager, search: @escaping InstanceSearch) throws {
        self.core = core
        let builder = try Builder(ui: "send-notification")
        window = try builder.object("send_window")
        titleRow = try builder.object("title_row")
        bodyRow = try builder.object("body_row")
        audienceRow = try builder.object("audience_row")
        audienceDetailRow = try builder.object("audience_detail_row")
        timeRow = try builder.object("time_row")
        dateRow = try builder.object("date_row")
        sendButton = try builder.object("send_button")
        problemLabel = try builder.object("problem_label")
        sizeLabel = try builder.object("size_label")
        previewTitle = try builder.object("preview_title")
        previewBody = try builder.object("preview_body")
        previewAudience = try builder.object("preview_audience")
        historyGroup = try builder.object("history_group")
        toastOverlay = try builder.object("toast_overlay")
        let linkRow: ActionRow = try builder.object("link_row")
        linkPicker = InstancePicker(
            shown: nil, placeholder: "HaloDesk", accessibleLabel: "Instance the notification opens", search: search, onPick: { _ in })
        linkPicker.button.centerVertically()
        linkRow.addSuffix(linkPicker.button)
        clearLinkButton = Button(
            iconName: "edit-clear-symbolic", accessibleLabel: "Open HaloDesk instead", tooltip: "Open HaloDesk instead")
        clearLinkButton.addCSSClass("flat")
        clearLinkButton.centerVertically()
        clearLinkButton.isVisible = false
        linkRow.addSuffix(clearLinkButton)
        dateInput = DateInput(purpose: "Send on", milliseconds: nil, onChange: { _, _ in })
        dateInput.button.centerVertically()
        ActionRow(retaining: dateRow.raw).addSuffix(dateInput.widget)
        window.setTransient(for: parent)
        wire()
        updatePreview()
        loadHistory()
    }

    private func wire() {
        linkPicker.onPick = weakly(self) { window, choice in
            window.link = choice
            window.linkPicker.show(name: choice.label)
            window.clearLinkButton.isVisible = true
            window.formChanged()
        }
        clearLinkButton.onClicked(
            weakly(self) { window in
                window.link = nil
                window.linkPicker.show(name: "HaloDesk")
                window.clearLinkButton.isVisible = false
                window.formChanged()
            })
        dateInput.onChange = weakly(self) { window, milliseconds, problem in
            window.sendOn = milliseconds
            window.formChanged()
            if let problem { window.showProblem(problem, at: "sendOn") }
        }
        for row in [titleRow, bodyRow, audienceDetailRow] { row.onChanged(weakly(self) { $0.formChanged() }) }
        audienceRow.onSelectionChanged(weakly(self) { $0.formChanged() })
        timeRow.onSelectionChanged(weakly(self) { $0.formChanged() })
        sendButton.onClicked(weakly(self) { $0.send() })
        window.onCloseRequest { [weak self] in
            self?.refresher?.cancel()
            return false
        }
    }

    func present() {
        window.present()
        titleRow.grabFocus()
        keepCountsFresh()
    }

    var audience: Audience { Audience(rawValue: audienceRow.selectedIndex) ?? .everyone }
    var isScheduled: Bool { timeRow.selectedIndex == 1 }

    /// The user changed the form: what was said about the last attempt no longer holds.
    private func formChanged() {
        if problemLabel.isVisible { showProblem(nil, at: nil) }
        updatePreview()
    }

    /// The preview, the rows that depend on the choices, and whether Send can be pressed.
    func updatePreview() {
        let title = titleRow.asEditable.text.trimmingCharacters(in: .whitespaces)
        previewTitle.text = title.isEmpty ? "Title" : title
        gtk_widget_set_opacity(previewTitle.widget, title.isEmpty ? 0.5 : 1)
        previewBody.text = bodyRow.asEditable.text
        previewBody.isVisible = !bodyRow.asEditable.text.isEmpty
        audienceDetailRow.isVisible = audience != .everyone
        adw_preferences_row_set_title(
            audienceDetailRow.raw.assumingMemoryBound(to: AdwPreferencesRow.self),
            audience == .tagged ? "Tags (name = value, separated by commas)" : "Device aliases (separated by commas)")
        dateRow.isVisible = isScheduled
        var lines = [audienceSentence]
        if let link { lines.append("Opens \(link.label)") }
        if isScheduled {
            lines.append(
                sendOn.map { "Goes out \(DisplayFormat.minute(Date(timeIntervalSince1970: $0 / 1000)))" } ?? "Pick when it goes out")
        }
        previewAudience.text = lines.joined(separator: " · ")
        let tooBig = showSize()
        sendButton.isSensitive = !title.isEmpty && tooBig == nil
        sendButton.tooltip = tooBig ?? "Send (Ctrl+Return)"
        sendButton.label = isScheduled ? "_Schedule" : "_Send"
    }

    /// What the notification carries to each device, as the server counts it (title, text and
    /// the instance it opens): the bytes left, or, when over, why it cannot be sent (returned).
    private func showSize() -> String? {
        var payload = PushDraft(
            title: titleRow.asEditable.text.trimmingCharacters(in: .whitespaces),
            body: bodyRow.asEditable.text.trimmingCharacters(in: .whitespaces))
        if let link { payload.instance = (link.moduleId, link.id) }
        let left = payload.payloadBytesLeft
        let limit = DisplayFormat.count(PushDraft.payloadByteLimit)
        guard left < 0 else {
            sizeLabel.text = "\(DisplayFormat.count(left)) of \(limit) bytes left"
            sizeLabel.removeCSSClass("error")
            sizeLabel.addCSSClass("dim-label")
            return nil
        }
        let problem =
            "\(DisplayFormat.count(-left)) \(left == -1 ? "byte" : "bytes") too long: a notification carries at most \(limit) bytes. Shorten the title or the text to send it."
        sizeLabel.text = problem
        sizeLabel.removeCSSClass("dim-label")
        sizeLabel.addCSSClass("error")
        return problem
    }

    private var audienceSentence: String {
        switch audience {
        case .everyone: "To every device"
        case .tagged: "To devices with every tag listed"
        case .aliases: "To the devices listed"
        }
    }

    /// The draft as the form says it, or what to correct and where.
    func draft() throws(FieldValueError) -> PushDraft {
        let title = titleRow.asEditable.text.trimmingCharacters(in: .whitespaces)
        guard !title.isEmpty else { throw FieldValueError("A notification needs a title.", field: "title") }
        var draft = PushDraft(title: title, body: bodyRow.asEditable.text.trimmingCharacters(in: .whitespaces))
        let detail = audienceDetailRow.asEditable.text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        switch audience {
        case .everyone: draft.audience = .everyone
        case .tagged:
            var tags: [Tag] = []
            for entry in detail {
                let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard let name = parts.first, !name.isEmpty else {
                    throw FieldValueError("Write each tag as name = value, for example Platform = desktop.", field: "audience")
                }
                tags.append(Tag(name: name, value: parts.count > 1 ? parts[1] : ""))
            }
            guard !tags.isEmpty else { throw FieldValueError("List the tags devices must carry, as name = value.", field: "audience") }
            draft.audience = .tagged(tags)
        case .aliases:
            guard !detail.isEmpty else { throw FieldValueError("List the aliases of the devices to send to.", field: "audience") }
            draft.audience = .aliases(detail)
        }
        if let link { draft.instance = (link.moduleId, link.id) }
        if isScheduled {
            guard let sendOn else { throw FieldValueError("Pick when the notification goes out.", field: "sendOn") }
            guard sendOn > Date().timeIntervalSince1970 * 1000 else {
                throw FieldValueError("That time has passed: pick a later one, or send it now.", field: "sendOn")
            }
            draft.sendOn = Date(timeIntervalSince1970: sendOn / 1000)
        }
        return draft
    }

    func send() {
        let draft: PushDraft
        do { draft = try self.draft() } catch {
            showProblem(error.description, at: error.field)
            return
        }
        showProblem(nil, at: nil)
        sendButton.isSensitive = false
        let core = core
        Task { @MainActor in
            defer {
                self.completedRequests += 1
                self.updatePreview()
            }
            do throws(HaloError) {
                let sent = try await core.sendPush(draft)
                self.toast(
                    sent.status == .scheduled
                        ? "“\(sent.title)” goes out \(DisplayFormat.minute(sent.sendOn))." : "“\(sent.title)” was sent.")
                self.clearForm()
                self.loadHistory()
            } catch {
                self.showProblem("Not sent: \(error.sentence)", at: nil)
            }
        }
    }

    private func clearForm() {
        titleRow.asEditable.text = ""
        bodyRow.asEditable.text = ""
        link = nil
        linkPicker.show(name: "HaloDesk")
        clearLinkButton.isVisible = false
    }

    /// Says what is wrong under the form, marks the row it is about and moves the keyboard there.
    private func showProblem(_ text: String?, at field: String?) {
        problemLabel.text = text ?? ""
        problemLabel.isVisible = text != nil
        let rows: [String: Widget] = ["title": titleRow, "audience": audienceDetailRow, "sendOn": dateRow]
        for (name, row) in rows {
            if name == field {
                row.addCSSClass("error")
                row.grabFocus()
            } else {
                row.removeCSSClass("error")
            }
        }
    }

    private func toast(_ message: String) {
        Toast(message).show(in: toastOverlay)
    }

    // MARK: History

    func loadHistory() {
        let core = core
        Task { @MainActor in
            defer { self.completedRequests += 1 }
            do throws(HaloError) {
                self.showHistory(try await core.pushSchedules())
            } catch {
                self.showHistory(nil, problem: "The notifications sent could not be read: \(error.sentence)")
            }
        }
    }

    private func keepCountsFresh() {
        refresher?.cancel()
        refresher = Task { @MainActor [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.refreshInterval)
                guard let self, self.window.isVisible else { return }
                self.loadHistory()
            }
        }
    }

    private func showHistory(_ schedules: [PushSchedule]?, problem: String? = nil) {
        if let schedules { history = schedules }
        for row in historyRows.values { historyGroup.remove(row) }
        historyRows = [:]
        withdrawButtons = [:]
        if let emptyHistoryRow { historyGroup.remove(emptyHistoryRow) }
        emptyHistoryRow = nil
        if history.isEmpty || problem != nil {
            let row = ActionRow(title: problem ?? "Nothing sent yet")
            historyGroup.add(row)
            emptyHistoryRow = row
            if problem != nil { return }
        }
        for schedule in history {
            let row = ActionRow(title: schedule.title.isEmpty ? schedule.name : schedule.title, subtitle: Self.summary(of: schedule))
            if schedule.status == .scheduled {
                let withdraw = Button(label: "Withdraw")
                withdraw.centerVertically()
                withdraw.setAccessibleLabel("Withdraw \(schedule.title)")
                withdraw.onClicked(weakly(self) { $0.withdraw(schedule) })
                row.addSuffix(withdraw)
                withdrawButtons[schedule.id] = withdraw
            }
            historyGroup.add(row)
            historyRows[schedule.id] = row
        }
    }

    /// "Sent 26 Nov 2026 14:02 · every device · received 3 · opened 1 · dismissed 0".
    static func summary(of schedule: PushSchedule) -> String {
        let when: String =
            switch schedule.status {
            case .sent: "Sent \(DisplayFormat.minute(schedule.sentAt ?? schedule.sendOn))"
            case .scheduled: "Goes out \(DisplayFormat.minute(schedule.sendOn))"
            case .cancelled: "Withdrawn"
            }
        let audience =
            if !schedule.aliases.isEmpty {
                schedule.aliases.count == 1 ? "1 device" : "\(schedule.aliases.count) devices"
            } else if schedule.tagCount > 0 {
                "devices with \(schedule.tagCount == 1 ? "a tag" : "\(schedule.tagCount) tags")"
            } else { "every device" }
        return "\(when) · \(audience) · received \(schedule.receipts) · opened \(schedule.opens) · dismissed \(schedule.dismissals)"
    }

    private func withdraw(_ schedule: PushSchedule) {
        let core = core
        Task { @MainActor in
            defer { self.completedRequests += 1 }
            do throws(HaloError) {
                _ = try await core.withdrawPush(id: schedule.id)
                self.toast("“\(schedule.title)” was withdrawn and will not go out.")
            } catch {
                self.toast("Could not withdraw “\(schedule.title)”: \(error.sentence)")
            }
            self.loadHistory()
        }
    }
}
