import CGtk
import Foundation
import HaloServices

/// What a desktop notification opens when clicked: its target in `app.open-notification`, as
/// JSON, so a click still knows where to go whichever notification server relays it.
struct NotificationTarget: Codable, Equatable {
    /// The desktop notification's id (the HALO schedule id), to report `open` and withdraw it.
    var notificationId: String
    /// The instance to open (the push's `data.instance`).
    var instanceId: String?
    /// A web address to open in the browser (the push's `url`), when no instance is named.
    var url: String?

    init(notificationId: String, instanceId: String? = nil, url: String? = nil) {
        self.notificationId = notificationId
        self.instanceId = instanceId
        self.url = url
    }

    init?(text: String) {
        guard let target = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)) else { return nil }
        self = target
    }

    var text: String { (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}" }
}

/// Shows the notifications the HALO Notifications add-on receives on the desktop, through
/// `GNotification` (the desktop's notification server, or the portal in a sandbox).
///
/// Each is sent under its schedule id, so a repeat replaces rather than adds. Clicking one runs
/// `app.open-notification` with its `NotificationTarget`; the shell opens the instance or the
/// link. Opening the linked instance in the app withdraws its notification. A burst (more than
/// `burstLimit` within `burstWindow`, e.g. what arrived while the computer slept) becomes one
/// summary instead of a flood. Silent pushes only sync their module (the add-on does that) and
/// show nothing.
@MainActor
final class DesktopNotifications {
    static let burstWindow: Duration = .milliseconds(400)
    static let burstLimit = 3
    /// The summary's id: a later burst replaces the earlier summary.
    static let summaryId = "halo-summary"

    /// What was handed to the desktop, newest last (tests read it; the id is the desktop's).
    private(set) var shown: [(id: String, title: String, body: String, target: NotificationTarget)] = []
    /// Ids withdrawn from the desktop (tests read it).
    private(set) var withdrawn: [String] = []
    private var waiting: [HaloNotification] = []
    private var isCollecting = false

    /// The add-on's delegate: hands each notification to the main thread.
    private(set) lazy var receiver = Receiver { [weak self] notification in
        Task { @MainActor in self?.receive(notification) }
    }

    final class Receiver: NotificationsDelegate {
        private let deliver: @Sendable (HaloNotification) -> Void
        init(_ deliver: @escaping @Sendable (HaloNotification) -> Void) { self.deliver = deliver }
        func notificationsAddon(_ addon: NotificationsAddon, didReceive notification: HaloNotification) { deliver(notification) }
    }

    /// Queues `notification`; what arrives within the burst window is shown together.
    func receive(_ notification: HaloNotification) {
        guard notification.type != .silent else { return }
        waiting.append(notification)
        guard !isCollecting else { return }
        isCollecting = true
        Task { @MainActor in
            try? await Task.sleep(for: Self.burstWindow)
            self.showWaiting()
        }
    }

    private func showWaiting() {
        isCollecting = false
        let batch = waiting
        waiting = []
        if batch.count > Self.burstLimit {
            showSummary(of: batch)
        } else {
            batch.forEach(show)
        }
    }

    private func show(_ notification: HaloNotification) {
        let id = notification.scheduleId ?? "halo-\(UUID().uuidString)"
        let title: String, body: String
        if notification.type == .twoFactor {
            title = "Your HALO Sign-In Code"
            body = notification.code ?? ""
        } else {
            title = notification.title ?? notification.body ?? "New Notification"
            body = notification.title == nil ? "" : notification.body ?? ""
        }
        let target = NotificationTarget(
            notificationId: id, instanceId: notification.payload["instance"]?.stringValue,
            url: notification.url.flatMap { WebAddress.isValid($0) ? $0 : nil })
        send(id: id, title: title, body: body, target: target)
    }

    private func showSummary(of batch: [HaloNotification]) {
        let titles = batch.compactMap { $0.title ?? $0.body }
        var lines = titles.prefix(3).map { "• \($0)" }
        if batch.count > 3 { lines.append("and \(batch.count - 3) more") }
        send(
            id: Self.summaryId, title: "\(batch.count) New Notifications", body: lines.joined(separator: "\n"),
            target: NotificationTarget(notificationId: Self.summaryId))
    }

    private func send(id: String, title: String, body: String, target: NotificationTarget) {
        shown.removeAll { $0.id == id }
        shown.append((id, title, body, target))
        guard let application = g_application_get_default() else { return }
        let notification = g_notification_new(title)
        if !body.isEmpty { g_notification_set_body(notification, body) }
        let icon = g_themed_icon_new(AppInfo.applicationID)
        g_notification_set_icon(notification, icon)
        g_notification_set_default_action_and_target_value(notification, "app.open-notification", g_variant_new_string(target.text))
        g_application_send_notification(application, id, notification)
        g_object_unref(UnsafeMutableRawPointer(icon))
        g_object_unref(UnsafeMutableRawPointer(notification))
    }

    /// The instance `instanceId` was opened in the app: its notifications are read.
    func instanceOpened(_ instanceId: String) {
        for entry in shown where entry.target.instanceId == instanceId { withdraw(entry.id) }
    }

    /// Removes the notification `id` from the desktop (it was clicked, or read in the app).
    func withdraw(_ id: String) {
        guard shown.contains(where: { $0.id == id }) else { return }
        shown.removeAll { $0.id == id }
        withdrawn.append(id)
        if let application = g_application_get_default() { g_application_withdraw_notification(application, id) }
    }
}
