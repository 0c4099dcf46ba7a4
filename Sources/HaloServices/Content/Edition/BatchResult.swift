/// The answer to a batch request (PROTOCOL §13.2).
public struct BatchResult: Hashable, Sendable, HaloWireDecodable {
    /// One entry per operation, in the server's order (truncates, creates, updates, …).
    public var operations: [BatchOperationResult]
    /// The server's counters (`results`), when sent; the SDKs did not read them.
    public var summary: JSONValue?

    public init(operations: [BatchOperationResult], summary: JSONValue? = nil) {
        self.operations = operations
        self.summary = summary
    }

    public init(wire: JSONValue) throws {
        let object = try WireObject(wire, what: "batch result")
        operations = try object.list("operations", BatchOperationResult.init(wire:))
        summary = object["results"]
    }

    public var succeeded: [BatchOperationResult] { operations.filter(\.success) }
    public var failed: [BatchOperationResult] { operations.filter { !$0.success } }
    /// The failures that are edit conflicts (409), each carrying the server's current copy.
    public var conflicts: [BatchOperationResult] { operations.filter { $0.error?.status == 409 } }
}

/// The outcome of one operation of a batch.
public struct BatchOperationResult: Hashable, Sendable, HaloWireDecodable {
    public var operation: BatchOperationType
    /// Zero-based index within that operation type's input list.
    public var position: Int
    public var success: Bool
    /// The module id, on truncate results.
    public var moduleId: String?
    /// The created/updated/deleted instance, on success of an instance operation.
    public var instance: ContentInstance?
    /// How many instances a truncate deleted. The Android fixture lists `[{id}]` instead of
    /// `{deletedInstances: n}`; that list's length is taken.
    public var deletedInstances: Int?
    /// Why the operation failed.
    public var error: BatchOperationError?
    /// The raw `data` member as sent.
    public var data: JSONValue?

    public init(
        operation: BatchOperationType, position: Int, success: Bool, moduleId: String? = nil,
        instance: ContentInstance? = nil, deletedInstances: Int? = nil, error: BatchOperationError? = nil,
        data: JSONValue? = nil
    ) {
        self.operation = operation
        self.position = position
        self.success = success
        self.moduleId = moduleId
        self.instance = instance
        self.deletedInstances = deletedInstances
        self.error = error
        self.data = data
    }

    public init(wire: JSONValue) throws {
        let object = try WireObject(wire, what: "batch operation result")
        // iOS mapped unknown operation names to create; kept for compatibility.
        operation = object.string("operation").flatMap(BatchOperationType.init(rawValue:)) ?? .create
        position = object.int("position") ?? 0
        success = object.bool("success") ?? false
        moduleId = object.string("module")
        data = object["data"]
        if let errorJSON = data?["error"] {
            error = try BatchOperationError(wire: errorJSON)
        }
        if success, let data {
            if operation == .truncate {
                deletedInstances =
                    data["deletedInstances"]?.int64Value.flatMap { Int(exactly: $0) }
                    ?? data.arrayValue?.count
            } else {
                instance = try ContentInstance(wire: data)
            }
        }
    }

    /// The server's current copy of the instance when the operation failed with a 409 conflict.
    public var conflictingInstance: ContentInstance? {
        guard error?.status == 409, let extra = error?.extra else { return nil }
        return try? ContentInstance(wire: extra)
    }
}

/// The error envelope of a failed batch operation (`data.error`, §2.1).
public struct BatchOperationError: Hashable, Sendable, HaloWireDecodable {
    public var status: Int
    public var message: String
    /// For 409: the conflicting server instance; for validation errors: the field details.
    public var extra: JSONValue?
    public var type: String?

    public init(status: Int, message: String, extra: JSONValue? = nil, type: String? = nil) {
        self.status = status
        self.message = message
        self.extra = extra
        self.type = type
    }

    public init(wire: JSONValue) throws {
        let object = try WireObject(wire, what: "batch operation error")
        guard let status = object.int("status") else {
            throw HaloError.invalidResponse(status: nil, message: "A batch operation error has no numeric \"status\".")
        }
        self.status = status
        message = object.string("message") ?? "Unknown error"
        extra = object["extra"]
        type = object.string("type")
    }

    /// The error as the SDK's error type.
    public var haloError: HaloError { .server(status: status, message: message, extra: extra) }
}
