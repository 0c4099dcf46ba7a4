/// Undo and redo over whole values: the filter builder's tree, the structured editor's JSON
/// (both small values, so a step is a copy, and undo can never disagree with the edits).
struct EditHistory<Value: Equatable & Sendable>: Sendable {
    private(set) var current: Value
    private var undoStack: [Value] = []
    private var redoStack: [Value] = []

    init(_ value: Value) { current = value }

    var canUndo: Bool { !undoStack.isEmpty }
    var canRedo: Bool { !redoStack.isEmpty }

    /// The typing edits are merged under: one undo step per value typed, not per key.
    private var lastTyping: String?

    /// Applies an edit; an edit that changes nothing is not recorded. Edits with the same
    /// `typing` key in a row (keys typed into one input) are one step.
    @discardableResult
    mutating func edit<Result, Failure: Error>(
        typing: String? = nil, _ change: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var next = current
        let result = try change(&next)
        guard next != current else { return result }
        if typing == nil || typing != lastTyping { undoStack.append(current) }
        redoStack.removeAll()
        current = next
        lastTyping = typing
        return result
    }

    mutating func undo() {
        guard let previous = undoStack.popLast() else { return }
        redoStack.append(current)
        current = previous
        lastTyping = nil
    }

    mutating func redo() {
        guard let next = redoStack.popLast() else { return }
        undoStack.append(current)
        current = next
        lastTyping = nil
    }
}
