import CGtk
import XCTest

@testable import HaloDesk

/// The row-position model and the closure factory: a 100,000-row list binds only what is visible.
final class ListInfrastructureTests: XCTestCase {
    @MainActor
    private final class RowWidgets {
        let label = Label()
    }

    func testHundredThousandRowsBindOnlyVisibleRows() throws {
        try MainActor.assumeIsolated {
            try GUITestEnvironment.initializeGTK()
            let model = IndexListModel()
            model.resize(to: 100_000)
            XCTAssertEqual(g_list_model_get_n_items(model.model), 100_000)

            let boundPositions = PositionLog()
            let factory = ListItemFactory<RowWidgets>(
                makeRow: {
                    let row = RowWidgets(); return (row, row.label)
                },
                bind: { row, position in
                    row.label.text = "Row \(position)"
                    boundPositions.positions.append(position)
                })
            // gtk_list_view_new and gtk_no_selection_new take ownership: give them their own references.
            g_object_ref(model.list.raw)
            g_object_ref(factory.factory.raw)
            let selection = gtk_no_selection_new(model.model)
            let listView = Widget(
                sinking: UnsafeMutableRawPointer(
                    gtk_list_view_new(
                        halo_selection_model(UnsafeMutableRawPointer(selection)),
                        halo_list_item_factory(factory.factory.raw))))
            let scroller = gtk_scrolled_window_new()
            gtk_scrolled_window_set_child(OpaquePointer(scroller), listView.widget)
            let window = Window(sinking: UnsafeMutableRawPointer(gtk_window_new()))
            window.setDefaultSize(width: 600, height: 800)
            gtk_window_set_child(window.window, scroller)
            window.present()
            defer { window.destroy() }

            XCTAssertTrue(MainLoopBridge.iterate(until: { factory.boundCount > 0 }, timeout: 10), "no row was bound")
            MainLoopBridge.iterate(until: { false }, timeout: 0.3)  // let layout settle
            XCTAssertGreaterThan(factory.boundCount, 10)
            XCTAssertLessThan(factory.boundCount, 1_000, "rows must be virtualized, not all bound")
            XCTAssertEqual(boundPositions.positions.min(), 0)
            XCTAssertLessThan(boundPositions.positions.max() ?? .max, 1_000)

            // New data for rows 0..<5 arrives: exactly those rows are filled again, in place (the
            // same row widgets, so focus and selection are untouched).
            boundPositions.positions.removeAll()
            let childrenBefore = Self.rowWidgets(of: listView)
            factory.rebind(where: (0..<5).contains)
            XCTAssertEqual(boundPositions.positions.sorted(), Array(0..<5))
            MainLoopBridge.iterate(until: { false }, timeout: 0.2)
            XCTAssertEqual(Self.rowWidgets(of: listView), childrenBefore, "no row widget was replaced")
            XCTAssertEqual(g_list_model_get_n_items(model.model), 100_000)

            // A shorter list (another module) removes rows at the end only: the rows that stay keep
            // their widgets, so GTK builds nothing, and they are filled again by `rebind`.
            model.resize(to: 30)
            XCTAssertEqual(g_list_model_get_n_items(model.model), 30)
            MainLoopBridge.iterate(until: { false }, timeout: 0.2)
            let childrenAfter = Self.rowWidgets(of: listView)
            XCTAssertEqual(childrenAfter.count, 30)
            XCTAssertEqual(Array(childrenBefore.prefix(30)), childrenAfter, "the 30 rows that stayed kept their widgets")
            model.resize(to: 40)
            MainLoopBridge.iterate(until: { false }, timeout: 0.2)
            XCTAssertEqual(Array(Self.rowWidgets(of: listView).prefix(30)), childrenAfter, "adding rows at the end kept the others")
        }
    }
}

extension ListInfrastructureTests {
    /// The list view's row widgets, in order.
    @MainActor
    static func rowWidgets(of listView: Widget) -> [UnsafeMutablePointer<GtkWidget>] { childWidgets(of: listView.widget) }
}

@MainActor
private final class PositionLog {
    var positions: [Int] = []
}
