import Foundation
import HaloServices

/// How many outbox entries wait, conflict or failed: the status area's button and the Pending
/// Edits window's subtitle say it the same way.
struct OutboxCounts: Equatable {
    var waiting = 0
    var conflicts = 0
    var failed = 0

    init(waiting: Int = 0, conflicts: Int = 0, failed: Int = 0) {
        self.waiting = waiting
        self.conflicts = conflicts
        self.failed = failed
    }

    init(_ standings: [PendingStanding]) {
        for standing in standings {
            switch standing {
            case .waiting: waiting += 1
            case .conflict: conflicts += 1
            case .failed: failed += 1
            }
        }
    }

    var total: Int { waiting + conflicts + failed }

    /// "3 edits pending · 1 conflict · 1 failed"; nil when the outbox is empty.
    var summary: String? {
        guard total > 0 else { return nil }
        var parts: [String] = []
        if waiting > 0 { parts.append("\(waiting) edit\(waiting == 1 ? "" : "s") pending") }
        if conflicts > 0 { parts.append("\(conflicts) conflict\(conflicts == 1 ? "" : "s")") }
        if failed > 0 { parts.append("\(failed) failed") }
        return parts.joined(separator: " · ")
    }
}

/// Where an outbox entry stands, an instance edit or a pocket save alike.
enum PendingStanding: Equatable {
    /// Waiting to be sent; `lastAttempt` is the last network error met.
    case waiting(lastAttempt: String?)
    /// The server's copy changed after the edit was made: both are kept.
    case conflict
    /// The server refused the edit.
    case failed(message: String)

    /// "Waiting", "Conflict: the server's copy changed" or "Failed: <the server's message>".
    var label: String {
        switch self {
        case .waiting(let error): return error.map { "Waiting (last attempt: \($0))" } ?? "Waiting"
        case .conflict: return "Conflict: the server's copy changed after this edit was made"
        case .failed(let message): return "Failed: \(message)"
        }
    }

    var iconName: String {
        switch self {
        case .waiting: return "document-send-symbolic"
        case .conflict: return "dialog-warning-symbolic"
        case .failed: return "dialog-error-symbolic"
        }
    }
}

extension OutboxEntryState {
    /// Where an entry in this state stands; `lastError` is its last network error.
    func standing(lastError: String?) -> PendingStanding {
        switch self {
        case .pending: .waiting(lastAttempt: lastError)
        case .conflict: .conflict
        case .failed(let message): .failed(message: message)
        }
    }
}

extension OutboxEntry {
    var standing: PendingStanding { state.standing(lastError: lastError) }
}

extension OutboxPocketEntry {
    var standing: PendingStanding { state.standing(lastError: lastError) }
}

/// A waiting pocket save as the Pending Edits window shows it: what it changes, and in a
/// conflict what Keep Mine would change in the pocket saved elsewhere.
struct PendingPocketRow {
    let entry: OutboxPocketEntry

    /// "Changed · queued 21 Nov, 22:05" (the group's title says it is the pocket).
    var subtitle: String { "Changed · queued \(DisplayFormat.dayAndTime(entry.queuedAt))" }

    /// The save's changes to the pocket it was made on.
    var changes: [PocketChange] { PocketChange.made(by: entry.save, on: entry.base) }

    /// In a conflict, the changes my save would make to the server's pocket (what Keep Mine
    /// would do). Empty for other states.
    var conflictChanges: [PocketChange] {
        guard let server = entry.server else { return [] }
        return PocketChange.made(by: entry.save, on: server)
    }

    /// Each part of `conflictChanges`: mine next to the server's, instance ids by `names`.
    func differences(names: [String: String]) -> [PendingEditRow.Difference] {
        conflictChanges.map { change in
            PendingEditRow.Difference(
                field: change.path, mine: change.shown(change.new, names: names), theirs: change.shown(change.current, names: names))
        }
    }
}

/// One outbox entry as the Pending Edits window shows it.
struct PendingEditRow {
    /// A field whose value differs between my version and the server's (conflicts).
    struct Difference: Equatable {
        let field: String
        let mine: String
        let theirs: String
    }

    let entry: OutboxEntry
    /// The kinds of the module's fields, to show values as the editor does (dates, yes/no).
    var fieldKinds: [String: FieldKind] = [:]

    /// "New", "Changed" or "Deleted".
    var kindLabel: String {
        switch entry.kind {
        case .create: return "New"
        case .update: return "Changed"
        case .delete: return "Deleted"
        }
    }

    var name: String {
        let name = entry.instance.name.trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? "Unnamed instance" : name
    }

    /// "Waiting", "Conflict: the server's copy changed" or "Failed: <the server's message>".
    var stateLabel: String { entry.standing.label }

    /// "Changed · Products · queued 21 Nov, 22:05".
    func subtitle(moduleName: String?) -> String {
        [kindLabel, moduleName ?? entry.instance.moduleId, "queued \(DisplayFormat.dayAndTime(entry.queuedAt))"]
            .joined(separator: " · ")
    }

    /// For a conflict, the fields whose values differ, mine next to the server's (name first,
    /// then values by field name); empty for other states.
    var differences: [Difference] {
        guard case .conflict(let server) = entry.state else { return [] }
        let mine = entry.instance
        var result: [Difference] = []
        if mine.name != server.name { result.append(Difference(field: "Name", mine: mine.name, theirs: server.name)) }
        for field in Set(mine.values.keys).union(server.values.keys).sorted() where mine.values[field] != server.values[field] {
            let kind = fieldKinds[field] ?? .text
            result.append(
                Difference(field: field, mine: Self.text(mine.values[field], kind), theirs: Self.text(server.values[field], kind)))
        }
        if Set(mine.tagList.map(\.name)) != Set(server.tagList.map(\.name)) {
            result.append(
                Difference(
                    field: "Tags", mine: mine.tagList.map(\.name).sorted().joined(separator: ", "),
                    theirs: server.tagList.map(\.name).sorted().joined(separator: ", ")))
        }
        if mine.publishedAt != server.publishedAt {
            result.append(
                Difference(
                    field: "Published", mine: mine.publishedAt.map(FieldValueText.format(date:)) ?? "—",
                    theirs: server.publishedAt.map(FieldValueText.format(date:)) ?? "—"))
        }
        return result
    }

    private static func text(_ value: JSONValue?, _ kind: FieldKind) -> String {
        let shown = FieldValueText.display(value, kind: kind)
        return shown.isEmpty ? "—" : shown
    }
}
