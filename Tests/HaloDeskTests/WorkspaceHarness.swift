import CAdw
import CGtk
import Foundation
import HaloServer
import HaloServices
import HaloTestSupport
import XCTest

@testable import HaloDesk

/// A real local workspace for GUI tests: a HaloServer on loopback seeded with the demo, the app's
/// SDK signed in as the demo editor, a `WorkspaceView` in a real window, and a second SDK client
/// that checks what actually reached the server.
///
/// The server runs in the test process, or (`serverProcess: true`) as a `halo-server` child
/// process that `killServer()` takes away with SIGKILL and `restartServer()` brings back on the
/// same port and data, as a real outage does.
@MainActor
final class WorkspaceHarness {
    private let inProcessServer: HaloServerInstance?
    private var childServer: ChildServer?
    private let serverPort: Int
    /// The in-process server (not for a harness with `serverProcess: true`).
    var server: HaloServerInstance {
        guard let inProcessServer else { preconditionFailure("this harness runs halo-server as a child process") }
        return inProcessServer
    }
    let directory: URL
    /// The demo's client and editor (for the `halo` CLI).
    let demo: DemoCredentials
    let appCore: CoreManager
    let checker: CoreManager
    let window: Window
    let view: WorkspaceView
    private let toastLog = ToastLog()
    var toasts: [String] { toastLog.messages }

    /// `beforeTheView` runs once the app's SDK client is signed in, before the workspace opens
    /// (e.g. to damage its files). With `liveUpdates` the workspaces follow the live event stream
    /// as the app's do (`notifications` is the first one's add-on).
    init(serverProcess: Bool = false, liveUpdates: Bool = false, beforeTheView: (CoreManager) throws -> Void = { _ in }) throws {
        self.liveUpdates = liveUpdates
        try GUITestEnvironment.initializeGTK()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-workspace-\(UUID().uuidString)")
        let serverDirectory = directory.appendingPathComponent("server")
        if serverProcess {
            let child: ChildServer
            (child, serverPort, demo) = try Self.startDemoChildServer(in: serverDirectory)
            childServer = child
            inProcessServer = nil
        } else {
            let server: HaloServerInstance
            (server, demo) = try Self.startDemoServer(in: serverDirectory)
            serverPort = server.port
            inProcessServer = server
        }
        let baseURL = try XCTUnwrap(URL(string: "http://127.0.0.1:\(serverPort)"))
        appCore = try Self.signedInCore(
            baseURL: baseURL, demo: demo, directory: directory.appendingPathComponent("app"), liveUpdates: liveUpdates)
        checker = try Self.signedInCore(baseURL: baseURL, demo: demo, directory: directory.appendingPathComponent("checker"))
        try beforeTheView(appCore)

        (view, window) = try Self.openWorkspace(core: appCore, user: demo.editorEmail, toasts: toastLog)
    }

    /// The same user signed in to the same server from another computer (its own data folder):
    /// a second workspace window. Closed by `tearDown`.
    func openSecondWorkspace() throws -> (view: WorkspaceView, toasts: ToastLog) {
        let core = try Self.signedInCore(
            baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:\(serverPort)")), demo: demo,
            directory: directory.appendingPathComponent("second-computer"), liveUpdates: liveUpdates)
        let toasts = ToastLog()
        let (view, window) = try Self.openWorkspace(core: core, user: demo.editorEmail, toasts: toasts)
        secondWorkspaces.append((view, window))
        return (view, toasts)
    }
    private var secondWorkspaces: [(WorkspaceView, Window)] = []
    private let liveUpdates: Bool

    /// A workspace window as the app shows it once signed in, its toasts kept in `toasts`; waits
    /// until the modules and the first module's instances are listed.
    private static func openWorkspace(core: CoreManager, user: String, toasts: ToastLog) throws -> (WorkspaceView, Window) {
        // Not the app's embedded workspace: a server of its own on loopback, which can go away as
        // a remote one can (so the workspace keeps offline copies).
        let session = WorkspaceSession(core: core, title: "Local workspace", isLocal: false)
        let view = try WorkspaceView(session: session, toaster: { toasts.messages.append($0) })
        // An AdwWindow has no title bar of its own: the panes' header bars are the window's, as in the app.
        let window = Window(sinking: UnsafeMutableRawPointer(adw_window_new()))
        window.setDefaultSize(width: 1200, height: 760)
        window.title = "HaloDesk workspace"
        view.showSignedIn(workspace: "Local workspace", user: user)
        adw_window_set_content(window.raw.assumingMemoryBound(to: AdwWindow.self), view.widget.widget)
        window.present()
        XCTAssertTrue(
            MainLoopBridge.iterate(until: { !view.sidebar.modules.isEmpty && view.pager.totalItems != nil }, timeout: 20),
            "modules and the first module's instances should load")
        return (view, window)
    }

    func tearDown() {
        for (view, window) in [(view, window)] + secondWorkspaces {
            if let dialog = view.pendingDialog { dialog.destroy() }
            view.close()
            window.destroy()
        }
        if let server = inProcessServer { _ = try? Self.wait { await server.stop() } }
        childServer?.kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The ids `halo search --module <module> --filter <filter> --sort 'updatedAt desc'` prints,
    /// in its order (the CLI run as a user would, against this harness's server).
    func haloSearch(module: String, filter: String) throws -> [String] {
        try Self.haloSearch(module: module, filter: filter, port: serverPort, demo: demo, home: directory.appendingPathComponent("cli"))
            .compactMap { $0["id"]?.stringValue }
    }

    /// The instances (as JSON) `halo search` prints for the server on `port`, with its config in
    /// `home`; as the demo's editor (who also sees drafts and scheduled instances) when `asEditor`.
    static func haloSearch(
        module: String, filter: String, port: Int, demo: DemoCredentials, home: URL, asEditor: Bool = false
    ) throws -> [JSONValue] {
        let output = try halo(
            ["search", "--module", module, "--filter", filter, "--sort", "updatedAt desc", "--json"], port: port, demo: demo,
            home: home, asEditor: asEditor)
        return try JSONValue(string: output)["items"]?.arrayValue ?? []
    }

    /// What the `halo` CLI prints for `arguments` against the server on `port` (a second client),
    /// with its config in `home`; signed in as the demo's editor when `asEditor`. Fails the test
    /// when it exits with an error.
    static func halo(_ arguments: [String], port: Int, demo: DemoCredentials, home: URL, asEditor: Bool = false) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        for (name, folder) in [("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")] {
            environment[name] = home.appendingPathComponent(folder).path
        }
        var editor: [String] = []
        if asEditor {
            editor = ["--user", demo.editorEmail]
            environment["HALO_PASSWORD"] = demo.editorPassword
        }
        let result = try ChildProcess.run(
            try ChildServer.builtBinary(named: "halo").path,
            arguments + [
                "--server", "http://127.0.0.1:\(port)", "--client-id", demo.clientId, "--client-secret", demo.clientSecret,
            ] + editor, environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    /// Kills the `halo-server` child process (SIGKILL: no goodbye to the app).
    func killServer() {
        childServer?.kill()
        childServer = nil
    }

    /// Starts `halo-server` again on the same port and data.
    func restartServer() throws {
        precondition(inProcessServer == nil && childServer == nil, "kill the child server first")
        let child = try ChildServer(
            binary: try ChildServer.builtBinary(), directory: directory.appendingPathComponent("server"), port: serverPort)
        XCTAssertEqual(try child.waitForPort(), serverPort)
        childServer = child
    }

    /// Opens the module named `name` the way a click on the sidebar does and waits for its rows.
    func openModule(_ name: String) throws {
        let module = try XCTUnwrap(view.sidebar.modules.first { $0.name == name }, "no module \(name)")
        view.sidebar.activate(moduleId: try XCTUnwrap(module.id))
        XCTAssertTrue(
            pump { self.view.pager.moduleId == module.id && self.view.pager.instance(at: 0) != nil && self.view.table.isSettled },
            "rows of \(name) did not load")
    }

    /// Pumps the main loop until `condition` holds.
    @discardableResult
    func pump(timeout: Double = 15, until condition: () -> Bool) -> Bool {
        MainLoopBridge.iterate(until: condition, timeout: timeout)
    }

    /// Waits for the next save/delete/batch request of the view to finish.
    func waitForOperation(after count: Int) {
        XCTAssertTrue(pump { self.view.completedOperations > count }, "the request did not finish")
    }

    /// Instances of module `name` on the server, as the second client sees them.
    func serverInstances(module name: String) throws -> [ContentInstance] {
        let moduleId = try XCTUnwrap(view.sidebar.modules.first { $0.name == name }?.id)
        let checker = checker
        return try Self.wait { try await checker.content.search(query: SearchQuery().moduleIds([moduleId]).skipPagination()).instances }
    }

    /// Saves `<name>-light.png` and `<name>-dark.png` of the workspace window into test-artifacts/.
    func screenshots(name: String) throws {
        try GUITestEnvironment.screenshots(of: window, named: name)
    }

    /// An in-process HaloServer on loopback with its data in `directory`, seeded with the demo.
    static func startDemoServer(in directory: URL) throws -> (HaloServerInstance, DemoCredentials) {
        let server = try wait {
            try await HaloServerInstance.start(HaloServerConfiguration(dataDirectory: directory, logRequests: false))
        }
        do {
            return (server, try wait { try await server.admin.seedDemo() })
        } catch {
            _ = try? wait { await server.stop() }
            throw error
        }
    }

    /// `halo-server` as a child process serving `directory`, seeded with the demo first.
    static func startDemoChildServer(in directory: URL, options: [String] = []) throws -> (ChildServer, port: Int, DemoCredentials) {
        let admin = try HaloServerAdmin.open(dataDirectory: directory)
        let demo = try wait { try await admin.seedDemo() }
        let child = try ChildServer(binary: try ChildServer.builtBinary(), directory: directory, options: options)
        do {
            return (child, try child.waitForPort(), demo)
        } catch {
            child.kill()
            throw error
        }
    }

    /// Runs async work to completion while the GLib loop (and with it the main actor) keeps running.
    static func wait<T: Sendable>(timeout: Double = 30, _ work: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Outcome<T>()
        Task.detached { do { outcome.set(.success(try await work())) } catch { outcome.set(.failure(error)) } }
        guard MainLoopBridge.iterate(until: { outcome.get() != nil }, timeout: timeout), let result = outcome.get() else {
            throw TimedOut(description: "async work did not finish within \(timeout) s")
        }
        return try result.get()
    }

    private static func signedInCore(baseURL: URL, demo: DemoCredentials, directory: URL, liveUpdates: Bool = false) throws -> CoreManager {
        var configuration = HaloConfiguration()
        configuration.appCredentials = Credentials(clientId: demo.clientId, clientSecret: demo.clientSecret)
        configuration.environment = .custom(baseURL.absoluteString)
        configuration.dataDirectory = directory
        configuration.cacheDirectory = directory.appendingPathComponent("cache")
        let core = CoreManager(configuration: configuration)
        if liveUpdates { core.registerAddon(NotificationsAddon()) }
        try wait {
            try await core.startup()
            _ = try await core.auth.login(
                authProfile: AuthProfile(email: demo.editorEmail, password: demo.editorPassword), stayLoggedIn: false)
        }
        return core
    }
}

@MainActor
final class ToastLog {
    var messages: [String] = []
}

/// A result handed from a detached task to the main thread.
final class Outcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Result<T, Error>?
    func set(_ result: Result<T, Error>) { lock.withLock { value = result } }
    func get() -> Result<T, Error>? { lock.withLock { value } }
}

struct TimedOut: Error, CustomStringConvertible { let description: String }
