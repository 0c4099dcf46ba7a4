import CGtk
import Dispatch

/// Lets `@MainActor` code run while GLib's main loop owns the main thread.
///
/// Under `g_application_run` nothing drains libdispatch's main queue, so a `Task` that hops back to
/// the main actor would never resume. libdispatch signals pending main-queue work through an
/// eventfd (the hook Foundation's run loop uses on Linux); we watch that fd from GLib and drain the
/// queue when it becomes readable. Reading the eventfd first matters: otherwise it stays readable
/// and the loop spins a core at 100%.
enum MainLoopBridge {
    @MainActor private static var sourceID: guint = 0

    /// Installs the bridge once; later calls do nothing.
    @MainActor
    static func install() {
        guard sourceID == 0 else { return }
        let fd = _dispatch_get_main_queue_handle_4CF()
        sourceID = g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, G_IO_IN, drainMainQueue, nil, nil)
    }

    /// Runs one GLib main-context iteration at a time until `condition` holds or `timeout` passes.
    /// For tests and for code that must wait synchronously for the loop (never in handlers).
    @MainActor
    @discardableResult
    static func iterate(until condition: () -> Bool, timeout: Double) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        while !condition() {
            if DispatchTime.now().uptimeNanoseconds > deadline { return false }
            // Non-blocking iteration plus a short sleep keeps timers and fd sources serviced without
            // blocking forever when nothing is pending.
            if g_main_context_iteration(nil, 0) == 0 { g_usleep(1_000) }
        }
        return true
    }
}

private let drainMainQueue: @convention(c) (gint, GIOCondition, gpointer?) -> gboolean = { fd, _, _ in
    halo_eventfd_drain(fd)
    _dispatch_main_queue_callback_4CF(nil)
    return 1  // G_SOURCE_CONTINUE
}
