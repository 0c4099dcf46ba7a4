import Foundation
import HaloServices

/// A named list of the pocket's `references`, as edited. HALO's rules (PROTOCOL §8.2) are three
/// outcomes a save can have for a list, and the window shows which one each list is headed for:
/// entries (the list is created or replaced), an empty list (Clear List: the list stays, empty),
/// or deleted (Delete List: sent as null, the server removes it).
struct PocketReferenceList: Equatable, Sendable {
    var name: String
    /// nil: the list is to be deleted.
    var entries: [String]?

    var wire: JSONValue { entries.map { .array($0.map(JSONValue.string)) } ?? .null }
}

/// One difference between the pocket as read and as edited, for the review before saving: a
/// member of `data` (added, changed or removed) or a reference list.
struct PocketChange: Equatable, Sendable, Identifiable {
    enum Part: Equatable, Sendable, Hashable {
        case dataMember(String)
        case referenceList(String)
    }

    let part: Part
    /// nil: not there before (added) or not there after (removed; null for a deleted list).
    let current: JSONValue?
    let new: JSONValue?

    var id: Part { part }

    /// The path the review shows ("data.theme", "references.favorites").
    var path: String {
        switch part {
        case .dataMember(let key): "data.\(key)"
        case .referenceList(let name): "references.\(name)"
        }
    }

    /// Every difference from one state of a pocket to the next, data members first, each part in
    /// name order. A list of `before` absent from `after`, or nil there, is deleted (shown as null).
    static func between(
        data before: [String: JSONValue], references beforeLists: [String: [String]], and after: [String: JSONValue],
        _ afterLists: [String: [String]?]
    ) -> [PocketChange] {
        var found: [PocketChange] = []
        for key in Set(before.keys).union(after.keys).sorted() where before[key] != after[key] {
            found.append(PocketChange(part: .dataMember(key), current: before[key], new: after[key]))
        }
        let wire = { (list: [String]) in JSONValue.array(list.map(JSONValue.string)) }
        for name in Set(beforeLists.keys).union(afterLists.keys).sorted() {
            let old = beforeLists[name], new = afterLists[name] ?? nil
            if old == new { continue }
            found.append(PocketChange(part: .referenceList(name), current: old.map(wire), new: new.map(wire) ?? .null))
        }
        return found
    }

    /// How one side of the change (`current` or `new`) reads in a review: a reference list as its
    /// entries, an instance id by its name when `names` has it ("Desk Lamp 12"), an empty or a
    /// deleted list in words; a data member as compact JSON. Long text ends with "…".
    func shown(_ side: JSONValue?, names: [String: String]) -> String {
        let text: String
        switch (part, side) {
        case (_, nil): text = "(none)"
        case (.referenceList, .null?): text = "(list deleted)"
        case (.referenceList, .array(let entries)?) where entries.isEmpty: text = "(empty list)"
        case (.referenceList, .array(let entries)?):
            text = entries.map { entry in entry.stringValue.map { names[$0] ?? $0 } ?? entry.compactJSONText }.joined(separator: ", ")
        case (_, let value?): text = value.compactJSONText
        }
        return text.count > 60 ? String(text.prefix(57)) + "…" : text
    }

    /// The instance ids the reference lists of `changes` hold (whose names a review shows).
    static func instanceIds(in changes: [PocketChange]) -> Set<String> {
        Set(
            changes.flatMap { change -> [String] in
                guard case .referenceList = change.part else { return [] }
                return [change.current, change.new].flatMap { $0?.arrayValue ?? [] }.compactMap(\.stringValue)
            }
        ).filter(FieldKind.isInstanceID)
    }

    /// What `save` changes in `pocket` (as the server would apply it, §8.2).
    static func made(by save: Pocket, on pocket: Pocket) -> [PocketChange] {
        let after = pocket.applying(save)
        return between(data: pocket.data, references: pocket.references, and: after.data, after.references.mapValues { Optional($0) })
    }
}

/// The pocket window's whole document: `data` in the structured editor's draft and the reference
/// lists, against the pocket as read (`original`), so the review lists each change and can revert
/// it. One value, so one undo history covers every edit of the window.
struct PocketDraft: Equatable, Sendable {
    var data: JSONDraft
    var references: [PocketReferenceList]
    /// The pocket as read from the server, and its revision (the save's `If-Match`).
    let originalData: [String: JSONValue]
    let originalReferences: [String: [String]]
    let revision: String?
    /// The server's pocket limits, as it announced them (`AuthManager.pocketLimits`).
    let limits: PocketLimitValues

    init(_ pocket: Pocket, limits: PocketLimitValues = .defaults) {
        self.limits = limits
        originalData = pocket.data
        originalReferences = pocket.references
        revision = pocket.revision
        data = JSONDraft(.object(pocket.data), fixedRootType: .object)
        references = pocket.references.keys.sorted().map { PocketReferenceList(name: $0, entries: pocket.references[$0]) }
    }

    /// The pocket as read: what a save is based on.
    var base: Pocket { Pocket(references: originalReferences, data: originalData, revision: revision) }

    // MARK: Reading

    /// `data` as it would be saved (nil while the draft has a problem).
    var dataValue: [String: JSONValue]? { (try? data.value())?.objectValue }

    /// How many of the 2,000 characters `data` takes, counted as the server counts.
    var dataLength: Int? { dataValue.map(Pocket.dataLength) }

    /// How many bytes the whole pocket takes as edited (data and every list; deleted lists left
    /// out), counted as the server counts against `limits.wholePocketBytes`.
    var wholeBytes: Int? {
        dataValue.map { data in
            Pocket.wholeBytes(
                references: Dictionary(references.compactMap { list in list.entries.map { (list.name, $0) } }) { a, _ in a }, data: data)
        }
    }

    /// The whole pocket's bytes as read.
    var originalBytes: Int { Pocket.wholeBytes(references: originalReferences, data: originalData) }

    /// Why the pocket cannot be saved as it is (nil: it can).
    var saveProblem: String? {
        if let problem = data.problems.first { return "A value in data needs fixing: \(problem.description)" }
        if let length = dataLength, length > limits.dataCharacters {
            return
                "Data is \(DisplayFormat.count(length)) characters, \(DisplayFormat.count(length - limits.dataCharacters)) over the limit of \(DisplayFormat.count(limits.dataCharacters)). Remove something to save."
        }
        // A pocket stored when the server allowed more may still be saved smaller.
        if let bytes = wholeBytes, bytes > limits.wholePocketBytes, bytes > originalBytes {
            return
                "The pocket would take \(DisplayFormat.count(bytes)) bytes, \(DisplayFormat.count(bytes - limits.wholePocketBytes)) more than the \(DisplayFormat.count(limits.wholePocketBytes)) it can hold. Remove entries or data to save."
        }
        if let name = repeatedListName { return "Two lists are named “\(name)”." }
        if references.contains(where: { $0.name.trimmingCharacters(in: .whitespaces).isEmpty }) { return "Every list needs a name." }
        return nil
    }

    private var repeatedListName: String? {
        var seen = Set<String>()
        return references.first { !seen.insert($0.name).inserted }?.name
    }

    /// Every difference from the pocket as read, data members first, each part in name order. A
    /// list removed from the window without Delete List (e.g. renamed) is deleted on the server.
    var changes: [PocketChange] {
        let lists = Dictionary(references.map { ($0.name, $0.entries) }, uniquingKeysWith: { first, _ in first })
        return PocketChange.between(data: originalData, references: originalReferences, and: dataValue ?? originalData, lists)
    }

    /// The save: all of `data` (a save replaces it) and only the lists that changed (lists not
    /// named are kept by the server), deleted ones as null.
    func pocketToSave() -> Pocket? {
        guard saveProblem == nil, let data = dataValue else { return nil }
        let pocket = Pocket()
        pocket.setData(data)
        for change in changes {
            guard case .referenceList(let name) = change.part else { continue }
            pocket.setReferences(key: name, values: change.new?.arrayValue?.compactMap(\.stringValue))
        }
        return pocket
    }

    // MARK: Editing

    /// Puts one part back as it was read.
    mutating func revert(_ part: PocketChange.Part) {
        switch part {
        case .dataMember(let key):
            data.setRootMember(key, to: originalData[key])
        case .referenceList(let name):
            if let index = references.firstIndex(where: { $0.name == name }) {
                if let entries = originalReferences[name] {
                    references[index].entries = entries
                } else {
                    references.remove(at: index)
                }
            } else if let entries = originalReferences[name] {
                references.append(PocketReferenceList(name: name, entries: entries))
                references.sort { $0.name < $1.name }
            }
        }
    }

    /// Adds an empty list named `name`; false when a list has that name already.
    mutating func addList(named name: String) -> Bool {
        guard !references.contains(where: { $0.name == name }) else { return false }
        references.append(PocketReferenceList(name: name, entries: []))
        return true
    }

    mutating func updateList(_ name: String, _ change: (inout PocketReferenceList) -> Void) {
        guard let index = references.firstIndex(where: { $0.name == name }) else { return }
        change(&references[index])
    }
}
