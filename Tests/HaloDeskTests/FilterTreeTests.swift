import Foundation
import HaloServices
import HaloTestSupport
import XCTest

@testable import HaloDesk

/// The filter builder's model: the tree edits, the value rules (a field or operator change keeps a
/// value only where it fits), the problems shown before Apply, undo and redo, and the exact trip
/// between the SDK's filters and the tree.
final class FilterTreeTests: XCTestCase {
    static let price = FilterField(name: "price", kind: .number, isMetadata: false)
    static let inStock = FilterField(name: "inStock", kind: .boolean, isMetadata: false)
    static let title = FilterField(name: "title", kind: .text, isMetadata: false)
    static let releaseDate = FilterField(name: "releaseDate", kind: .date, isMetadata: false)
    /// The benchmark module's fields (`halo-server seed --instances`) and the metadata.
    static let fields =
        [
            title, price, inStock, releaseDate, FilterField(name: "category", kind: .text, isMetadata: false),
            FilterField(name: "sku", kind: .text, isMetadata: false), FilterField(name: "rating", kind: .number, isMetadata: false),
            FilterField(name: "description", kind: .longText, isMetadata: false),
        ] + FilterField.metadata

    private func condition(_ field: FilterField, _ operation: FilterOperator, _ value: FilterValue) -> FilterCondition {
        FilterCondition(field: field, operation: operation, value: value)
    }

    func testBuildingTheNestedProductsFilter() throws {
        var tree = FilterTree()
        tree.addCondition(to: 0, condition(Self.price, .greaterOrEqual, .number(10)))
        tree.addCondition(to: 0, condition(Self.price, .lessOrEqual, .number(500)))
        let group = try XCTUnwrap(tree.addGroup(to: 0, match: .or))
        tree.addCondition(to: group, condition(Self.inStock, .equal, .bool(true)))
        tree.addCondition(to: group, condition(Self.title, .contains, .text("abi")))
        XCTAssertEqual(tree.conditionCount, 4)
        let filters = try XCTUnwrap(try tree.filters())
        let expected = #"price >= 10 and price <= 500 and (inStock = true or title like "abi")"#
        XCTAssertEqual(filters, try SearchFilters.parse(expression: expected))
        XCTAssertEqual(filters.expression, expected)
        XCTAssertNil(filters.metadata)
    }

    func testReadingAFilterAndApplyingItUnchangedSendsTheSameTrees() throws {
        let texts = [
            #"price >= 10 and price <= 500 and (inStock = true or title like "abi")"#,
            "category in [books, toys] and meta.deletedAt = null",
            "rating >= 4 and meta.updatedAt > @2024-05-01 and meta.name like abc",
            "releaseDate < @2024-01-01 or releaseDate > @2025-01-01",
            "price = null or price != null",
            // Not typed the way the builder types it: kept exactly (an object, a type hint).
            #"title = {"en-US": "Hi"} and price = 3 as string and unknownField like xyz"#,
            "sku in []",
            "meta.createdBy = ann",
        ]
        for text in texts {
            let filters = try SearchFilters.parse(expression: text)
            let tree = FilterTree(filters, fields: Self.fields)
            let problems = tree.problems.map(\.message)
            if text.contains("unknownField") || text.contains("[]") {
                XCTAssertFalse(problems.isEmpty, text)
                continue
            }
            XCTAssertEqual(problems, [], text)
            XCTAssertEqual(try tree.filters(), filters, text)
        }
        // A field the module no longer has is kept and marked, not dropped.
        let tree = FilterTree(try SearchFilters.parse(expression: "unknownField like xyz and price > 1"), fields: Self.fields)
        XCTAssertEqual(tree.problems.map(\.message), ["“unknownField” is not a field of this module any more."])
        XCTAssertEqual(tree.conditionCount, 2)
    }

    func testTheCorpusRoundTripsThroughTheTree() throws {
        let corpus = try QueryCorpus.load()
        XCTAssertGreaterThanOrEqual(corpus.count, 20)
        for entry in corpus where entry.filter != nil || entry.meta != nil {
            let filters = SearchFilters(
                values: try entry.filter.map { try SearchFilter.parse(expression: $0) },
                metadata: try entry.meta.map { try SearchFilter.parse(expression: $0) })
            let tree = FilterTree(filters, fields: Self.fields)
            XCTAssertEqual(tree.problems.map(\.message), [], entry.name)
            XCTAssertEqual(try tree.filters(), filters, "\(entry.name): \(filters.expression)")
        }
    }

    func testFieldAndOperatorChangesKeepOnlyValuesThatFit() {
        var price = condition(Self.price, .equal, .number(10))
        price.setOperator(.oneOf)
        XCTAssertEqual(price.value, .list([.number(10)]), "one value becomes a list of one")
        price.setOperator(.equal)
        XCTAssertEqual(price.value, .number(10), "and back")
        XCTAssertNil(price.clearedReason)

        price.setField(Self.title)
        XCTAssertEqual(price.value, .none, "a number does not fit a text field")
        XCTAssertEqual(price.clearedReason, "The value was cleared: “title” does not take it.")
        XCTAssertEqual(price.operation, .equal, "'is' is offered for text too")

        var list = condition(Self.price, .oneOf, .list([.number(1), .number(2)]))
        list.setOperator(.greater)
        XCTAssertEqual(list.value, .none)
        XCTAssertEqual(list.clearedReason, "The values were cleared: “is greater than” takes one value.")

        var text = condition(Self.title, .equal, .text("abbey"))
        text.setOperator(.contains)
        XCTAssertEqual(text.value, .text("abbey"))
        text.setField(Self.inStock)
        XCTAssertEqual(text.operation, .equal, "'contains' is not offered for booleans")
        XCTAssertEqual(text.value, .bool(true), "the text is cleared; a yes/no switch always shows a value, and it is held")
        XCTAssertEqual(text.clearedReason, "The value was cleared: “inStock” does not take it.")

        var empty = condition(Self.releaseDate, .less, .date(1_714_521_600_000))
        empty.setOperator(.isEmpty)
        XCTAssertEqual(empty.value, .none)
        XCTAssertEqual(empty.comparison, .comparison(operation: .equal, property: "releaseDate", value: .null, type: "null"))
        var date = condition(Self.releaseDate, .less, .date(1_714_521_600_000))
        XCTAssertEqual(date.comparison, .comparison(operation: .lessThan, property: "releaseDate", value: 1_714_521_600_000, type: "date"))
        date.setField(Self.price)
        XCTAssertEqual(date.value, .none, "a date does not fit a number field")
    }

    func testProblemsAreSaidAtTheCondition() throws {
        var tree = FilterTree()
        let blank = try XCTUnwrap(tree.addCondition(to: 0))
        let short = try XCTUnwrap(tree.addCondition(to: 0, condition(Self.title, .contains, .text("ab"))))
        let noValue = try XCTUnwrap(tree.addCondition(to: 0, condition(Self.price, .oneOf, .list([]))))
        let group = try XCTUnwrap(tree.addGroup(to: 0))
        let problems = Dictionary(uniqueKeysWithValues: tree.problems.map { ($0.id, $0.message) })
        XCTAssertEqual(problems[blank], "Choose a field.")
        XCTAssertEqual(problems[short], "Type at least 3 characters: HALO finds text by 3 or more.")
        XCTAssertEqual(problems[noValue], "Add at least one value.")
        XCTAssertEqual(problems[group], "Add a condition to this group, or delete it.")
        XCTAssertNil(try tree.filters(), "nothing is applied while a condition has a problem")

        // Values and metadata meet only at the top level with "all".
        var mixed = FilterTree()
        let any = try XCTUnwrap(mixed.addGroup(to: 0, match: .or))
        mixed.addCondition(to: any, condition(Self.price, .greater, .number(1)))
        mixed.addCondition(to: any, condition(FilterField.metadata[0], .contains, .text("abc")))
        mixed.addCondition(to: 0, condition(Self.price, .less, .number(9)))
        XCTAssertThrowsError(try mixed.filters()) { error in
            XCTAssertTrue("\(error)".contains("A metadata condition is in a group with value conditions"), "\(error)")
        }
        XCTAssertEqual(FilterTree().conditionCount, 0)
        XCTAssertEqual(try FilterTree().filters(), SearchFilters(), "an empty tree is no filter")
    }

    func testMovingDuplicatingDeletingAndTheNestingLimit() throws {
        var tree = FilterTree(maxDepth: 4)
        let first = try XCTUnwrap(tree.addCondition(to: 0, condition(Self.price, .greater, .number(1))))
        let second = try XCTUnwrap(tree.addCondition(to: 0, condition(Self.price, .less, .number(9))))
        XCTAssertTrue(tree.move(second, by: -1))
        XCTAssertFalse(tree.move(second, by: -1), "already first")
        XCTAssertEqual(try tree.filters()?.expression, "price < 9 and price > 1")
        let group = try XCTUnwrap(tree.addGroup(to: 0, match: .or))
        tree.addCondition(to: group, condition(Self.title, .contains, .text("abc")))
        let inner = try XCTUnwrap(tree.addGroup(to: group))
        XCTAssertEqual(tree.depth(of: inner), 3)
        XCTAssertFalse(tree.canAddGroup(to: inner), "its conditions would be at level 5 of 4")
        XCTAssertNil(tree.addGroup(to: inner))
        tree.delete(inner)
        let copy = try XCTUnwrap(tree.duplicate(group))
        XCTAssertNotEqual(copy, group)
        XCTAssertEqual(try tree.filters()?.expression, #"price < 9 and price > 1 and or(title like "abc") and or(title like "abc")"#)
        tree.delete(first)
        XCTAssertEqual(tree.conditionCount, 3)
    }

    func testUndoAndRedoEveryEdit() throws {
        var history = EditHistory<FilterTree>(FilterTree())
        let id = try XCTUnwrap(history.edit { $0.addCondition(to: 0, self.condition(Self.price, .greater, .number(1))) })
        history.edit { $0.updateCondition(id) { $0.setOperator(.less) } }
        history.edit { $0.delete(id) }
        XCTAssertTrue(history.current.isEmpty)
        history.undo()
        XCTAssertEqual(history.current.node(id)?.content, .condition(condition(Self.price, .less, .number(1))))
        history.undo()
        XCTAssertEqual(history.current.node(id)?.content, .condition(condition(Self.price, .greater, .number(1))))
        history.redo()
        history.redo()
        XCTAssertTrue(history.current.isEmpty)
        XCTAssertFalse(history.canRedo)
        history.edit { $0.move(12345, by: 1) }  // changes nothing: not recorded
        history.undo()
        XCTAssertEqual(history.current.conditionCount, 1)
    }
}
