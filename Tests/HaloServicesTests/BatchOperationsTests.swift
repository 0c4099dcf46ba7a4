import Foundation
import XCTest

@testable import HaloServices

/// Batch request bodies (PROTOCOL §13.1, iOS keys) and result reading (§13.2).
final class BatchOperationsTests: XCTestCase {
    private let created = Date(timeIntervalSince1970: 1_492_610_860.696)

    func testBodyUsesIOSKeysAndOmitsEmptyLists() throws {
        var operations = BatchOperations()
        XCTAssertEqual(operations.wireJSON, [:])
        XCTAssertTrue(operations.isEmpty)
        let new = ContentInstance(moduleId: "586a47f836a6b01300ec9f00", name: "From Linux", values: ["Title": "Hi"], createdAt: created)
        var existing = new
        existing.id = "58fa0e8173c4f5001031c5a8"
        existing.updatedAt = Date(timeIntervalSince1970: 1_492_782_728.392)
        operations.truncate(moduleId: "000000000000000000000003")
        operations.create(new)
        operations.update(existing)
        operations.createOrUpdate(existing)
        operations.delete(instanceId: "5874c5f06a3a0d1e00c8039d")
        try operations.delete(existing)
        XCTAssertThrowsError(try operations.delete(new)) { error in
            XCTAssertEqual(error as? HaloError, .invalidInput(message: "The instance \"From Linux\" has no id, so it cannot be deleted."))
        }
        XCTAssertEqual(operations.count, 6)
        let newJSON: JSONValue = [
            "module": "586a47f836a6b01300ec9f00", "name": "From Linux", "values": ["Title": "Hi"], "tags": [],
            "createdAt": 1_492_610_860_696,
        ]
        let existingJSON: JSONValue = [
            "id": "58fa0e8173c4f5001031c5a8", "module": "586a47f836a6b01300ec9f00", "name": "From Linux",
            "values": ["Title": "Hi"], "tags": [], "createdAt": 1_492_610_860_696, "updatedAt": 1_492_782_728_392,
            // An update says which publication dates are unset (cleared), not only those set.
            "publishedAt": nil, "removedAt": nil, "archivedAt": nil,
        ]
        XCTAssertEqual(
            operations.wireJSON,
            [
                "truncated": [["module": "000000000000000000000003"]],
                "created": [newJSON],
                "updated": [existingJSON],
                "createdOrUpdated": [existingJSON],
                "deleted": [["id": "5874c5f06a3a0d1e00c8039d"], ["id": "58fa0e8173c4f5001031c5a8"]],
            ])
        // addOperation maps onto the same lists.
        var viaType = BatchOperations()
        try viaType.addOperation(type: .truncate, instance: new)
        try viaType.addOperation(type: .delete, instance: existing)
        XCTAssertEqual(viaType.truncated, ["586a47f836a6b01300ec9f00"])
        XCTAssertEqual(viaType.deleted, ["58fa0e8173c4f5001031c5a8"])
    }

    func testResultOfProtocolExample() throws {
        let instance: JSONValue = ["id": "i1", "module": "m1", "name": "N", "values": [:], "createdAt": 1]
        let wire: JSONValue = [
            "operations": [
                [
                    "operation": "truncate", "position": 0, "success": true, "module": "000000000000000000000003",
                    "data": ["deletedInstances": 3],
                ],
                ["operation": "create", "position": 0, "success": true, "data": instance],
                [
                    "operation": "update", "position": 0, "success": false,
                    "data": ["error": ["status": 409, "message": "conflict", "extra": instance, "type": "HaloError"]],
                ],
                [
                    "operation": "delete", "position": 1, "success": false,
                    "data": ["error": ["status": 404, "message": "Instance not found", "extra": [:], "type": "HaloError"]],
                ],
                ["operation": "somethingNew", "position": 0, "success": true],
            ]
        ]
        let result = try BatchResult(wire: wire)
        XCTAssertEqual(result.operations[0].deletedInstances, 3)
        XCTAssertEqual(result.operations[0].moduleId, "000000000000000000000003")
        XCTAssertEqual(result.operations[1].instance?.id, "i1")
        XCTAssertEqual(result.operations[2].conflictingInstance?.name, "N")
        XCTAssertEqual(result.operations[2].error?.haloError.httpStatus, 409)
        XCTAssertEqual(result.operations[3].position, 1)
        XCTAssertNil(result.operations[3].conflictingInstance)
        XCTAssertEqual(result.operations[4].operation, .create, "unknown operation names read as create, as iOS did")
        XCTAssertEqual(result.conflicts.count, 1)
        XCTAssertNil(result.summary)
    }

    func testMalformedResultsAreErrors() {
        XCTAssertThrowsError(try BatchResult(wire: ["operations": "x"]))
        XCTAssertThrowsError(
            try BatchResult(wire: [
                "operations": [
                    [
                        "operation": "update", "success": false,
                        "data": ["error": ["message": "no status"]],
                    ]
                ]
            ]))
        XCTAssertThrowsError(try BatchResult(wireData: Data("{\"operations\": [],}".utf8)))
    }
}
