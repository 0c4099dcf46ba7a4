import Foundation
import HaloIdentityProvider
import HaloServer
import HaloServices
import HaloTestSupport
import XCTest

@testable import HaloDesk

/// Starts the real `halo-desk` binary under the session's Xvfb display, as `make run` does, and
/// looks at it from outside: the X11 window list, a screenshot, and the accessibility tree.
final class AppLaunchTests: XCTestCase {
    private var app: Process?
    private var home: URL?

    override func tearDown() {
        if let app, app.isRunning {
            app.terminate()
            app.waitUntilExit()
        }
        if let home { try? FileManager.default.removeItem(at: home) }
        super.tearDown()
    }

    /// Launches halo-desk with its own XDG directories; `accessibility` keeps the AT-SPI bridge on.
    /// `beforeLaunch` gets the XDG config directory (e.g. to leave settings there).
    private func launchApp(
        name: String, accessibility: Bool, arguments: [String] = [], beforeLaunch: (_ config: URL) throws -> Void = { _ in }
    ) throws -> Process {
        try GUITestEnvironment.requireDisplay()
        let binary = GUITestEnvironment.productsDirectory.appendingPathComponent("halo-desk")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("\(binary.path) is not built (make test builds it with `swift build --build-tests`)")
        }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("halo-desk-\(name)-\(UUID().uuidString)")
        self.home = home
        for folder in ["config", "data", "cache"] {
            try FileManager.default.createDirectory(at: home.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try beforeLaunch(home.appendingPathComponent("config"))
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        environment["GDK_BACKEND"] = "x11"
        environment["GSK_RENDERER"] = "cairo"
        if accessibility { environment.removeValue(forKey: "GTK_A11Y") } else { environment["GTK_A11Y"] = "none" }
        let log = GUITestEnvironment.artifactsDirectory.appendingPathComponent("\(name).log")
        let process = try ChildProcess.start(binary.path, ["--non-unique"] + arguments, environment: environment, log: log)
        app = process
        return process
    }

    /// The X11 id of the top-level window titled `title`, once it is mapped: the largest one, since
    /// the app's popups (tooltips, popovers) carry its title too.
    private func windowID(titled title: String) throws -> String? {
        let tree = try ChildProcess.run("/usr/bin/xwininfo", ["-root", "-tree"])
        // Lines look like:   0x200007 "HaloDesk": ("halo-desk" "halo-desk")  1100x720+0+0  +0+0
        func area(_ line: Substring) -> Int {
            guard let size = line.split(separator: " ").first(where: { $0.contains("x") && $0.contains("+") }) else { return 0 }
            let sides = size.split(separator: "+")[0].split(separator: "x").compactMap { Int($0) }
            return sides.count == 2 ? sides[0] * sides[1] : 0
        }
        return tree.stdout.split(separator: "\n").filter { $0.contains("\"\(title)\":") }.max { area($0) < area($1) }
            .flatMap { $0.split(separator: " ").first.map(String.init) }
    }

    func testMainWindowOpensWithItsTitleAndIsScreenshotted() throws {
        let process = try launchApp(name: "launch", accessibility: false)
        let id = try ChildProcess.poll(timeout: 30) { try windowID(titled: "HaloDesk") }
        XCTAssertTrue(process.isRunning, "halo-desk exited early; see test-artifacts/launch.log")
        let window = try XCTUnwrap(id, "no window titled HaloDesk appeared within 30 s")

        // Give GTK a moment to paint the first frame before grabbing the pixels.
        Thread.sleep(forTimeInterval: 1.0)
        let png = GUITestEnvironment.artifactsDirectory.appendingPathComponent("main-window-launch.png")
        try? FileManager.default.removeItem(at: png)
        let grab = try ChildProcess.run("/usr/bin/import", ["-window", window, png.path])
        XCTAssertEqual(grab.status, 0, grab.stderr)
        let size = try FileManager.default.attributesOfItem(atPath: png.path)[.size] as? Int ?? 0
        XCTAssertGreaterThan(size, 5_000, "the screenshot is suspiciously small: \(png.path)")

        let info = try ChildProcess.run("/usr/bin/xwininfo", ["-id", window])
        XCTAssertTrue(info.stdout.contains("\"HaloDesk\""), info.stdout)
        let width = info.stdout.split(separator: "\n").first { $0.contains("Width:") }
        XCTAssertNotNil(width)
    }

    /// Finds the running app's main window by its accessible name, as a screen reader would.
    func testAccessibilityTreeExposesTheMainWindowByName() throws {
        try runAccessibilityScript(
            "find_window.py", arguments: ["HaloDesk", "30"], log: "accessibility",
            expecting: "found frame 'HaloDesk'")
    }

    /// Signs in to the local workspace through the accessibility tree only: every control the
    /// script needs is found by its accessible name.
    func testSignInThroughTheAccessibilityTree() throws {
        try runAccessibilityScript(
            "sign_in.py", arguments: ["editor@halo.local", "90"], log: "accessibility-sign-in",
            appArguments: ["--local-workspace"], expecting: "found signed-in workspace")
    }

    /// Signs in, then checks the workspace through the accessibility tree: its main controls are
    /// found by name and role, "New instance" works when pressed through AT-SPI, and no showing
    /// interactive node is nameless.
    func testWorkspaceThroughTheAccessibilityTree() throws {
        try runAccessibilityScript(
            "workspace.py", arguments: ["editor@halo.local", "90"], log: "accessibility-workspace",
            appArguments: ["--local-workspace"], expecting: "every showing interactive node has a name")
    }

    /// Issue 13's done-when from outside the process: the filter built by clicking through the
    /// builder over AT-SPI lists what `halo search --filter` returns for the same text, online and
    /// with the server (a `halo-server` process the script kills) stopped.
    func testFilterBuilderThroughTheAccessibilityTreeOnlineAndOffline() throws {
        try GUITestEnvironment.requireDisplay()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-atspi-filter-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, port, demo, settings) = try startRemoteDemo(in: directory)
        defer { server.kill() }
        let filter = FilterBuilderTests.doneWhen
        let names = try MainActor.assumeIsolated {
            try WorkspaceHarness.haloSearch(
                module: "Products", filter: filter, port: port, demo: demo, home: directory.appendingPathComponent("cli")
            ).compactMap { $0["name"]?.stringValue }
        }
        XCTAssertGreaterThan(names.count, 0)
        XCTAssertLessThan(names.count, 150, "the filter must narrow the module")
        let expected = directory.appendingPathComponent("expected.json")
        let text = try SearchFilters.parse(expression: filter).expression  // as the builder's text form writes it
        try JSONValue.object(["text": .string(text), "names": .array(names.map(JSONValue.string))]).jsonString()
            .write(to: expected, atomically: true, encoding: .utf8)
        try runAccessibilityScript(
            "filter_builder.py", arguments: [demo.editorPassword, String(server.processIdentifier), expected.path, "180"],
            log: "accessibility-filter-builder", expecting: "offline rows match"
        ) { config in try settings.save(to: config.appendingPathComponent("halo-desk/settings.json")) }
    }

    /// Issue 14 from outside the process: a product created over AT-SPI with the field
    /// editors (entries, a number refused then accepted, a switch, a color's hex code, a choice
    /// picked in its popover, two choices toggled) reaches the server with those values and types, as
    /// `halo search` reads them.
    func testFieldEditorsThroughTheAccessibilityTree() throws {
        try GUITestEnvironment.requireDisplay()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-atspi-fields-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, port, demo, settings) = try startRemoteDemo(in: directory)
        defer { server.kill() }
        let name = "AT-SPI Lamp \(Int.random(in: 1000...9999))"
        let started = Date()
        try runAccessibilityScript(
            "field_editors.py", arguments: [demo.editorPassword, name, "400"], log: "accessibility-field-editors",
            expecting: "created through the field editors"
        ) { config in try settings.save(to: config.appendingPathComponent("halo-desk/settings.json")) }

        // A second client (the `halo` CLI, as the demo's editor) reads what the script typed.
        func instance(_ module: String, named name: String) throws -> JSONValue {
            let found = try MainActor.assumeIsolated {
                try WorkspaceHarness.haloSearch(
                    module: module, filter: "meta.name = \"\(name)\"", port: port, demo: demo,
                    home: directory.appendingPathComponent("cli"), asEditor: true)
            }
            return try XCTUnwrap(found.first, "\(name) is not on the server")
        }
        func id(_ module: String, _ name: String) throws -> JSONValue {
            try XCTUnwrap(instance(module, named: name)["id"], "no id for \(name)")
        }
        func localMilliseconds(_ day: (Int, Int, Int), _ time: String) throws -> JSONValue {
            // The app runs in the test's time zone (it inherits TZ).
            let date = try XCTUnwrap(DisplayFormat.localDate(year: day.0, month: day.1, day: day.2, time: time))
            return .number((date.timeIntervalSince1970 * 1000).rounded())
        }

        let product = try instance("Products", named: name)
        let values = try XCTUnwrap(product["values"])
        XCTAssertEqual(values["title"], "Lamp made over AT-SPI")
        XCTAssertEqual(values["price"], .number(12.5))
        XCTAssertEqual(values["inStock"], .bool(true))
        XCTAssertEqual(values["color"], "#00897b")
        XCTAssertEqual(values["size"], "L")
        XCTAssertEqual(values["features"], ["recycled", "organic"])
        XCTAssertEqual(values["manual"], "https://videos.example.com/at-spi.mp4")
        XCTAssertEqual(values["jingle"], "https://sounds.example.com/at-spi.ogg")
        XCTAssertEqual(values["releaseDate"], .number(1_806_192_000_000), "2027-03-28 at 00:00 UTC, whatever the time zone")
        XCTAssertEqual(values["specs"], ["watts": .number(40)])
        XCTAssertEqual(values["sizes"], ["S", "M"])
        let publishedAt = try XCTUnwrap(product["publishedAt"]?.doubleValue, "Publish sets publishedAt: \(product)")
        XCTAssertEqual(publishedAt / 1000, started.timeIntervalSince1970, accuracy: 600, "published now")
        XCTAssertEqual(product["removedAt"] ?? .null, .null)
        let tags = product["tags"]?.arrayValue ?? []
        XCTAssertTrue(tags.contains { $0["name"] == "region" && $0["value"] == "emea" }, "the tag added: \(tags)")

        let article = try instance("Articles", named: name + " (article)")
        let text = try XCTUnwrap(article["values"])
        XCTAssertEqual(text["title"], ["en-US": "Lamps, explained", "es-ES": "Lámparas, explicadas"])
        XCTAssertEqual(text["summary"], "How a lamp is made")
        XCTAssertEqual(text["body"], "<p>Made <b>by hand</b>.</p>")
        XCTAssertEqual(text["cover"], "https://images.example.com/lamp.png")
        XCTAssertEqual(text["link"], "https://example.com/lamps")
        XCTAssertEqual(text["video"], "https://www.youtube.com/watch?v=dQw4w9WgXcQ")
        XCTAssertEqual(text["author"], try id("Authors", "Ada Lovelace"))
        XCTAssertEqual(text["related"], .array([try id("Authors", "Grace Hopper"), try id("Authors", "Linus Torvalds")]))
        XCTAssertEqual(text["topics"], ["science"])
        XCTAssertEqual(text["category"], "guide")
        XCTAssertEqual(text["featured"], .bool(true))
        XCTAssertEqual(article["publishedAt"], try localMilliseconds((2030, 1, 15), "09:00"), "scheduled: \(article)")

        let event = try instance("Events", named: name + " (event)")
        let plan = try XCTUnwrap(event["values"])
        XCTAssertEqual(plan["name"], "Lamp night")
        XCTAssertEqual(plan["venue"], "Main hall")
        XCTAssertEqual(plan["starts"], try localMilliseconds((2027, 3, 28), "19:30"))
        XCTAssertEqual(plan["doors"], .number(Double((18 * 60 + 45) * 60_000)), "18:45 as milliseconds since midnight")
        XCTAssertEqual(plan["poster"], "https://images.example.com/poster.png")
        XCTAssertEqual(plan["description"], ["fr-FR": "Une soirée"])
        XCTAssertEqual(plan["speakers"], .array([try id("Authors", "Radia Perlman")]))
        XCTAssertEqual(event["publishedAt"] ?? .null, .null, "an instance never published stays a draft")
    }

    /// The pocket window over AT-SPI (`accessibility/pocket.py`): data and reference lists edited,
    /// an over-limit value refused before anything is sent, Clear and Delete List, the review and
    /// the save; a second client then reads the pocket byte for byte.
    func testPocketThroughTheAccessibilityTree() throws {
        try GUITestEnvironment.requireDisplay()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-atspi-pocket-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, port, demo, settings) = try startRemoteDemo(in: directory)
        defer { server.kill() }
        let cli = directory.appendingPathComponent("cli")
        let halo = { (arguments: [String]) in
            try MainActor.assumeIsolated { try WorkspaceHarness.halo(arguments, port: port, demo: demo, home: cli, asEditor: true) }
        }
        let before = directory.appendingPathComponent("pocket.json")
        try Data(#"{"data":{"size":2},"references":{"old":["x"],"recent":["a","b"]}}"#.utf8).write(to: before)
        _ = try halo(["pocket", "set", "--file", before.path])

        try runAccessibilityScript(
            "pocket.py", arguments: [demo.editorPassword, "150"], log: "accessibility-pocket", expecting: "pocket saved"
        ) { config in try settings.save(to: config.appendingPathComponent("halo-desk/settings.json")) }

        let ada = try XCTUnwrap(
            try MainActor.assumeIsolated {
                try WorkspaceHarness.haloSearch(
                    module: "Authors", filter: "meta.name = \"Ada Lovelace\"", port: port, demo: demo, home: cli)
            }.first?["id"]?.stringValue)
        let pocket = try JSONValue(string: try halo(["pocket", "get", "--json"]))
        XCTAssertEqual(
            JSONValue.object(["data": pocket["data"] ?? .null, "references": pocket["references"] ?? .null]).compactJSONText,
            #"{"data":{"size":2,"theme":"dark"},"references":{"reading":["\#(ada)","note-1"],"recent":[]}}"#,
            "the pocket as the window saved it: \(pocket)")
    }

    /// Issue 15's done-when: HaloDesk, started by the test on a remote server that trusts a local
    /// OpenID Connect provider (set up as Preferences › Browser Sign-In saves it: the client id in
    /// the settings, its secret in the keyring), signs in with Google through a real Chromium at
    /// the provider's consent page, driven over AT-SPI and Selenium; the server then holds the
    /// identified user, and the app remembers Ada as the one who signed in.
    func testBrowserSignInThroughChromium() throws {
        try GUITestEnvironment.requireDisplay()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") else {
            if ProcessInfo.processInfo.environment["HALO_REQUIRE_GUI"] == "1" { XCTFail("chromium-driver is not installed (make setup)") }
            throw XCTSkip("chromium-driver is not installed (make setup)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-atspi-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let provider = try MainActor.assumeIsolated { try WorkspaceHarness.wait { try await LocalIdentityProvider.start(.demo) } }
        defer { MainActor.assumeIsolated { _ = try? WorkspaceHarness.wait { await provider.stop() } } }
        let trust = directory.appendingPathComponent("social.json")
        try JSONEncoder().encode(
            SocialSignInSettings.localProvider(
                issuer: provider.issuer, clientIds: [LocalIdentityProvider.Settings.desktopClientId],
                facebookAppId: LocalIdentityProvider.Settings.facebookAppId,
                facebookAppSecret: LocalIdentityProvider.Settings.facebookAppSecret)
        ).write(to: trust)
        var (server, _, _, settings) = try startRemoteDemo(in: directory, serverOptions: ["--social-config", trust.path])
        defer { server.kill() }
        settings.signInProviders = SocialProviderKeys(
            googleClientId: LocalIdentityProvider.Settings.desktopClientId, googleDiscoveryURL: provider.issuer.absoluteString)
        try MainActor.assumeIsolated {
            let keyring = SocialProvider.secretKeyring(clientId: LocalIdentityProvider.Settings.desktopClientId)
            try WorkspaceHarness.wait { try await keyring.store(LocalIdentityProvider.Settings.desktopClientSecret, label: "test") }
        }

        let consent = GUITestEnvironment.packageRoot.appendingPathComponent("Tests/HaloServicesTests/browser/consent.py")
        var config: URL?
        try runAccessibilityScript(
            "browser_sign_in.py",
            arguments: [consent.path, "Ada Lovelace", GUITestEnvironment.artifactsDirectory.path, "90"],
            log: "accessibility-browser-sign-in", expecting: "signed in through the browser"
        ) { folder in
            config = folder
            try settings.save(to: folder.appendingPathComponent("halo-desk/settings.json"))
        }
        // What the person sees afterwards: the workspace.
        try screenshotOfMainWindow(named: "browser-sign-in-workspace.png")
        // The app remembers who signed in; the server's own database holds the identified Google user.
        let remembered = AppSettings.load(from: try XCTUnwrap(config).appendingPathComponent("halo-desk/settings.json")).settings
        XCTAssertEqual(remembered.lastEmail, "ada@example.com")
        let rows = try ChildProcess.run(
            "/usr/bin/sqlite3",
            [
                directory.appendingPathComponent("server/halo.sqlite").path,
                "SELECT email, network FROM server_user WHERE network = 'google'",
            ])
        XCTAssertEqual(rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "ada@example.com|google")
    }

    /// Issue 16's done-when: a push sent through HALO's send API reaches the desktop through the
    /// notification server on the test's private session bus (a recorder of every Notify call),
    /// and clicking it opens the linked instance; a second one about the same instance is withdrawn
    /// once it is read; the server counts both receipts and the opening.
    func testDesktopNotificationOpensItsInstance() throws {
        try GUITestEnvironment.requireDisplay()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halo-atspi-notify-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (server, port, demo, settings) = try startRemoteDemo(in: directory)
        defer { server.kill() }
        let ada = try XCTUnwrap(
            try MainActor.assumeIsolated {
                try WorkspaceHarness.haloSearch(
                    module: "Authors", filter: "meta.name = \"Ada Lovelace\"", port: port, demo: demo,
                    home: directory.appendingPathComponent("cli"))
            }.first)
        let record = directory.appendingPathComponent("notifications.jsonl")
        let daemon = try ChildProcess.start(
            "/usr/bin/python3",
            [
                GUITestEnvironment.packageRoot.appendingPathComponent("Tests/HaloDeskTests/accessibility/notification_daemon.py").path,
                record.path,
            ],
            environment: ProcessInfo.processInfo.environment,
            log: GUITestEnvironment.artifactsDirectory.appendingPathComponent("notification-daemon.log"))
        defer {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        try runAccessibilityScript(
            "notifications.py",
            arguments: [
                demo.editorPassword, "120", "http://127.0.0.1:\(port)", demo.editorEmail, record.path,
                try XCTUnwrap(ada["moduleId"]?.stringValue ?? ada["module"]?.stringValue), try XCTUnwrap(ada["id"]?.stringValue),
                "Ada Lovelace",
            ],
            log: "accessibility-notifications", expecting: "notification opened its instance"
        ) { config in try settings.save(to: config.appendingPathComponent("halo-desk/settings.json")) }
        try screenshotOfMainWindow(named: "notification-opened.png")
    }

    /// Saves what the main window shows now into test-artifacts/`name`, for a person to look at.
    /// `import` once hung for minutes in a CI run: it gets 20 s.
    private func screenshotOfMainWindow(named name: String) throws {
        guard let window = try windowID(titled: "HaloDesk") else { return }
        _ = try ChildProcess.run(
            "/usr/bin/timeout",
            ["20", "/usr/bin/import", "-window", window, GUITestEnvironment.artifactsDirectory.appendingPathComponent(name).path])
    }

    /// A `halo-server` child process with the demo, remembered by HaloDesk as its Connect page
    /// leaves a server: the client secret in the keyring and the returned settings (saved by the
    /// caller into the app's config), so the app opens on the sign-in page.
    private func startRemoteDemo(in directory: URL, serverOptions: [String] = []) throws
        -> (ChildServer, port: Int, DemoCredentials, AppSettings)
    {
        let (server, port, demo) = try MainActor.assumeIsolated {
            try WorkspaceHarness.startDemoChildServer(in: directory.appendingPathComponent("server"), options: serverOptions)
        }
        let url = "http://127.0.0.1:\(port)"
        try MainActor.assumeIsolated {
            let keyring = RemoteWorkspace.secretKeyring(environment: HaloEnvironment(url), clientId: demo.clientId)
            try WorkspaceHarness.wait { try await keyring.store(demo.clientSecret, label: "HaloDesk test client") }
        }
        var settings = AppSettings()
        settings.workspace = .remote
        settings.environment = url
        settings.clientId = demo.clientId
        settings.lastEmail = demo.editorEmail
        return (server, port, demo, settings)
    }

    /// Launches the app with the accessibility bus, runs `accessibility/<script>` against it (as
    /// assistive technology would, from outside the process) and requires it to succeed and print
    /// `expected`. The app's output goes to test-artifacts/<log>.log.
    private func runAccessibilityScript(
        _ script: String, arguments: [String], log: String, appArguments: [String] = [],
        expecting expected: String, beforeLaunch: (_ config: URL) throws -> Void = { _ in }
    ) throws {
        guard FileManager.default.fileExists(atPath: "/usr/libexec/at-spi-bus-launcher") else {
            throw XCTSkip("at-spi2-core is not installed")
        }
        let process = try launchApp(name: log, accessibility: true, arguments: appArguments, beforeLaunch: beforeLaunch)
        let path = GUITestEnvironment.packageRoot.appendingPathComponent("Tests/HaloDeskTests/accessibility/\(script)").path
        let result = try ChildProcess.run("/usr/bin/python3", [path, "halo-desk"] + arguments)
        XCTAssertTrue(process.isRunning, "halo-desk exited early; see test-artifacts/\(log).log")
        // One line, so the run's failure summary (the lines with "error:") shows every step.
        let steps = (result.stdout + result.stderr).split(separator: "\n").joined(separator: " | ")
        XCTAssertEqual(result.status, 0, "AT-SPI: \(steps)")
        XCTAssertTrue(result.stdout.contains(expected), "AT-SPI: \(steps)")
    }
}
