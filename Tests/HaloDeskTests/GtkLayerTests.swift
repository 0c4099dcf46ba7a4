import CGtk
import XCTest

@testable import HaloDesk

/// The typed GTK layer: signal closures are freed with their connection, and `@MainActor`
/// tasks resume inside GLib's main loop.
final class GtkLayerTests: XCTestCase {
    /// Deallocation tells us whether a signal closure (which captures it) is still alive.
    private final class Canary {}

    func testEmittingClickedRunsTheSwiftHandlerSynchronously() throws {
        try MainActor.assumeIsolated {
            try GUITestEnvironment.initializeGTK()
            let button = Button(label: "Press")
            let clicks = Counter()
            button.onClicked { clicks.value += 1 }
            button.click()
            button.click()
            XCTAssertEqual(clicks.value, 2)
        }
    }

    /// `weakly` binds a handler to its owner without keeping the owner alive: while the owner
    /// lives the handler reaches it; once it is gone the handler does nothing.
    func testAWeaklyBoundHandlerDoesNotKeepItsOwnerAlive() throws {
        final class Owner {
            var clicks = 0
            var values: [String] = []
        }
        try MainActor.assumeIsolated {
            try GUITestEnvironment.initializeGTK()
            let button = Button(label: "Press")
            weak var weakOwner: Owner?
            var callback: (@MainActor (String) -> Void)?
            do {
                let owner = Owner()
                weakOwner = owner
                button.onClicked(weakly(owner) { $0.clicks += 1 })
                callback = weakly(owner) { owner, value in owner.values.append(value) }
                button.click()
                callback?("a")
                XCTAssertEqual(owner.clicks, 1)
                XCTAssertEqual(owner.values, ["a"])
            }
            XCTAssertNil(weakOwner, "the button's handler and the callback must not retain their owner")
            button.click()  // the owner is gone: nothing happens, nothing crashes
            callback?("b")
        }
    }

    func testDisconnectingReleasesTheClosureBox() throws {
        try MainActor.assumeIsolated {
            try GUITestEnvironment.initializeGTK()
            let button = Button(label: "Press")
            weak var weakCanary: Canary?
            let connection: SignalConnection = {
                let canary = Canary()
                weakCanary = canary
                return button.onClicked { _ = canary }
            }()
            XCTAssertNotNil(weakCanary, "the connected closure keeps what it captured alive")
            connection.disconnect()
            XCTAssertNil(weakCanary, "disconnecting must release the closure box")
            button.click()  // no handler left: must not crash
        }
    }

    func testFinalizingTheWidgetReleasesTheClosureBox() throws {
        try MainActor.assumeIsolated {
            try GUITestEnvironment.initializeGTK()
            weak var weakCanary: Canary?
            weak var weakButton: Button?
            do {
                let button = Button(label: "Press")
                weakButton = button
                let canary = Canary()
                weakCanary = canary
                button.onClicked { _ = canary }
            }
            // The Swift wrapper held the only reference: its deinit unrefs, GTK finalizes the
            // button and calls the destroy notify, which drops the box.
            MainLoopBridge.iterate(until: { weakCanary == nil }, timeout: 2)
            XCTAssertNil(weakButton)
            XCTAssertNil(weakCanary, "finalizing the widget must release the closure box")
        }
    }

    func testTaskAwaitingBackgroundWorkUpdatesALabelInsideTheGLibLoop() throws {
        try MainActor.assumeIsolated {
            try GUITestEnvironment.initializeGTK()
            let label = Label("waiting")
            let mainThreadHops = Counter()
            Task { @MainActor in
                let text = await Task.detached {
                    try? await Task.sleep(for: .milliseconds(30))
                    return "loaded on \(Thread.isMainThread ? "main" : "a background") thread"
                }.value
                mainThreadHops.value += Thread.isMainThread ? 1 : 0
                label.text = text
            }
            XCTAssertEqual(label.text, "waiting", "the task must not have run synchronously")
            let resumed = MainLoopBridge.iterate(until: { label.text != "waiting" }, timeout: 5)
            XCTAssertTrue(resumed, "a @MainActor continuation never ran: the GLib↔dispatch bridge is broken")
            XCTAssertEqual(label.text, "loaded on a background thread")
            XCTAssertEqual(mainThreadHops.value, 1)
        }
    }

    func testBuilderLoadsTheMainWindowLayoutAndReportsMissingObjects() throws {
        try MainActor.assumeIsolated {
            try GUITestEnvironment.initializeGTK()
            let builder = try Builder(ui: "main-window")
            let window: Window = try builder.object("main_window")
            XCTAssertEqual(window.title, "HaloDesk")
            XCTAssertThrowsError(try builder.object("no_such_object", as: Widget.self)) { error in
                XCTAssertEqual("\(error)", "main-window.ui: no object with id 'no_such_object'")
            }
            // A wrong type is refused, naming the file, the id and both types.
            XCTAssertThrowsError(try builder.object("main_window", as: Button.self)) { error in
                XCTAssertEqual(
                    "\(error)", "main-window.ui: 'main_window' is a AdwApplicationWindow, but the code reads it as Button (GtkButton)")
            }
            // Subclasses and interfaces pass: a window is a widget.
            XCTAssertNoThrow(try builder.object("main_window", as: Widget.self))
            XCTAssertThrowsError(try Builder(ui: "no-such-layout")) { error in
                XCTAssertTrue("\(error)".contains("no-such-layout.ui"), "\(error)")
            }
            window.destroy()
        }
    }

    func testCommandLineOptions() throws {
        XCTAssertEqual(try CommandLineOptions(arguments: []), CommandLineOptions())
        let parsed = try CommandLineOptions(arguments: ["--non-unique", "--screenshot", "/tmp/x.png"])
        XCTAssertTrue(parsed.nonUnique)
        XCTAssertEqual(parsed.screenshotPath, "/tmp/x.png")
        XCTAssertThrowsError(try CommandLineOptions(arguments: ["--screenshot"]))
        XCTAssertThrowsError(try CommandLineOptions(arguments: ["--bogus"])) { error in
            XCTAssertEqual("\(error)", "unknown option '--bogus'")
        }
    }
}

@MainActor
final class Counter {
    var value = 0
}
