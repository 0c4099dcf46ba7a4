import Foundation
import Synchronization

/// Receives what the notifications add-on delivers (the seed's `NotificationsDelegate`, without
/// UIKit). Called on the add-on's task, one notification at a time, in the order they were sent.
public protocol NotificationsDelegate: AnyObject, Sendable {
    /// A notification for this device: `normal` ones to show, `silent` ones (their module is
    /// synced to the offline cache first, when the app keeps one), `twoFactor` ones with their
    /// `code`. Its receipt is already reported.
    func notificationsAddon(_ addon: NotificationsAddon, didReceive notification: HaloNotification)
}

/// The seed's HALO Notifications SDK on the desktop: instead of Firebase, it follows the server's
/// live event stream with this device's credential (docs/protocol.md §23.8), so it receives the
/// notifications addressed to the device (by alias, segmentation tags or everyone) while the app
/// runs, and at the next start those sent while it was closed (within the server's retention).
///
/// Register it before `startup`; it starts following once the device is saved. Each notification
/// reaches the delegate once: the stream resumes after the last event handled (kept in the data
/// directory across launches) and a schedule id already seen is skipped. It reports `receipt`
/// itself; the app reports `open` and `dismiss` with `report(_:for:)`. Content changes made
/// elsewhere come out of `contentEvents()`, one stream per subscriber.
public final class NotificationsAddon: Addon {
    public let addonName = "HaloNotifications"
    /// Schedule ids remembered for de-duplication.
    static let rememberedSchedules = 500
    /// How often the place in the stream is written down while only content changes arrive.
    static let progressSaveInterval: Duration = .seconds(2)

    private struct State {
        var delegate: (any NotificationsDelegate)?
        var follower: Task<Void, Never>?
        var core: WeakBox<CoreManager>?
        /// The open `contentEvents()` streams, by subscription number.
        var subscribers: [Int: AsyncStream<LiveEvent>.Continuation] = [:]
        var nextSubscriber = 0
    }
    private let state = Mutex(State())

    /// `delegate` receives the notifications from the first one on (set it here rather than
    /// later: those waiting on the server arrive as soon as the core starts).
    public init(delegate: (any NotificationsDelegate)? = nil) {
        state.withLock { $0.delegate = delegate }
    }

    deinit {
        let subscribers = state.withLock { state in
            state.follower?.cancel()
            return state.subscribers.values
        }
        subscribers.forEach { $0.finish() }
    }

    /// Content changes and resets from now on, in stream order, until the consumer stops
    /// iterating (each call is a subscription of its own; a slow one keeps the newest 1,000).
    public func contentEvents() -> AsyncStream<LiveEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: LiveEvent.self, bufferingPolicy: .bufferingNewest(1_000))
        let number = state.withLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: number) }
        }
        return stream
    }

    private func publish(_ event: LiveEvent) {
        state.withLock { $0.subscribers.values.forEach { $0.yield(event) } }
    }

    public var delegate: (any NotificationsDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// Whether the add-on is following the stream.
    public var isFollowing: Bool { state.withLock { $0.follower != nil } }

    public func didRegisterDevice(core: CoreManager) { follow(core) }

    /// The stream carries what its token may read (drafts reach editors only): it is opened again,
    /// resuming where it was, when a user signs in or out.
    public func didRegisterAddon(core: CoreManager) { core.auth.addObserver(self) }

    public func applicationWillTerminate(core: CoreManager) { stop() }

    /// Stops following (a later device save starts again, resuming where this stopped).
    public func stop() {
        state.withLock {
            $0.follower?.cancel()
            $0.follower = nil
        }
    }

    /// Reports what the user did with a notification (PROTOCOL §17.2), as this device.
    public func report(_ action: NotificationAction, for notification: HaloNotification) async throws(HaloError) {
        guard let core = state.withLock({ $0.core?.value }) else {
            throw .configuration(message: "The notifications add-on is not registered with a started core")
        }
        try await Self.report(action, for: notification, core: core)
    }

    private static func report(_ action: NotificationAction, for notification: HaloNotification, core: CoreManager) async throws(HaloError)
    {
        guard let alias = core.device?.alias,
            let activity = NotificationActivityEvent(notification: notification, deviceAlias: alias, action: action, platform: "linux")
        else { return }
        _ = try await core.performJSON(APIRequest(.post, "api/push/schedule/activity", body: .json(activity.wireJSON)))
    }

    private func follow(_ core: CoreManager) {
        let progress = NotificationProgress(core: core)
        let task = Task { [weak self] in
            var handled = progress.load()
            var saved = handled
            var lastSave = ContinuousClock.now
            for await event in Self.events(core, after: handled.lastEventId) {
                guard let self, !Task.isCancelled else { break }
                switch event {
                case .notification(let eventId, let notification):
                    if let schedule = notification.scheduleId, handled.schedules.contains(schedule) {
                        handled.lastEventId = eventId
                    } else {
                        await self.deliver(notification, core: core)
                        handled.record(eventId: eventId, schedule: notification.scheduleId, keeping: Self.rememberedSchedules)
                    }
                case .content(let change):
                    self.publish(.content(change))
                    handled.lastEventId = change.eventId
                case .reset(let latestId):
                    self.publish(.reset(latestId: latestId))
                    handled.lastEventId = latestId
                }
                // A delivered notification is written down at once (never shown twice); content
                // changes at most every `progressSaveInterval` (a burst is not a burst of writes;
                // replaying a few after a restart only refreshes a list).
                let isNotification = if case .notification = event { true } else { false }
                if isNotification || ContinuousClock.now - lastSave >= Self.progressSaveInterval {
                    progress.save(handled)
                    (saved, lastSave) = (handled, .now)
                }
            }
            if handled != saved { progress.save(handled) }
        }
        state.withLock {
            $0.follower?.cancel()
            $0.follower = task
            $0.core = WeakBox(core)
        }
    }

    /// The core's live events, ending (rather than throwing) when the stream cannot go on.
    private static func events(_ core: CoreManager, after lastEventId: Int64?) -> AsyncStream<LiveEvent> {
        AsyncStream { continuation in
            let task = Task {
                do {
                    for try await event in core.liveEvents(after: lastEventId) { continuation.yield(event) }
                } catch {
                    core.logMessage("Notifications stopped: \(error)", level: .warning)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func deliver(_ notification: HaloNotification, core: CoreManager) async {
        do { try await Self.report(.receipt, for: notification, core: core) } catch {
            core.logMessage("The receipt of notification \(notification.scheduleId ?? "?") was not reported: \(error)", level: .info)
        }
        // A silent push names the module whose content changed: bring the offline copy up to date.
        if notification.type == .silent, let module = notification.payload["module"]?.stringValue, core.defaultOfflinePolicy != .none {
            _ = try? await core.content.syncToCache(query: SyncQuery(moduleId: module))
        }
        delegate?.notificationsAddon(self, didReceive: notification)
    }
}

/// Where the add-on is in the stream, kept across launches (`notifications-<environment>.json` in
/// the data directory): the last event handled and the schedule ids already delivered.
struct NotificationProgress: Sendable {
    struct Handled: Codable, Equatable {
        var lastEventId: Int64?
        var schedules: [String] = []

        mutating func record(eventId: Int64, schedule: String?, keeping limit: Int) {
            lastEventId = eventId
            if let schedule { schedules.append(schedule) }
            if schedules.count > limit { schedules.removeFirst(schedules.count - limit) }
        }
    }

    let file: URL

    init(core: CoreManager) {
        let configuration = core.configuration
        let name = String(configuration.environment.description.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        file = configuration.dataDirectory.appendingPathComponent("notifications-\(name).json")
    }

    func load() -> Handled {
        (try? Data(contentsOf: file)).flatMap { try? JSONDecoder().decode(Handled.self, from: $0) } ?? Handled()
    }

    func save(_ handled: Handled) {
        guard let data = try? JSONEncoder().encode(handled) else { return }
        try? PrivateFiles.createDirectory(file.deletingLastPathComponent())
        try? PrivateFiles.writeAtomically(data, to: file)
    }
}

extension NotificationsAddon: AuthManagerObserver {
    public func userDidLogIn(_ user: User) { followAgain() }
    public func userDidLogOut() { followAgain() }

    /// Restarts a running follower with the session's new token, once the old one has written its place.
    private func followAgain() {
        let (old, core) = state.withLock { ($0.follower, $0.core?.value) }
        guard let old, let core else { return }
        old.cancel()
        Task { [weak self] in
            await old.value
            guard let self, self.state.withLock({ $0.follower == old }) else { return }  // stopped, or restarted meanwhile
            self.follow(core)
        }
    }
}
