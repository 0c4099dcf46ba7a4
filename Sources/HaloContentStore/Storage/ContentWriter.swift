import GRDB

/// Writes instances into the content tables with prepared statements reused across rows, so the
/// bulk path (seeding, sync) costs one statement step per row and no SQL parsing.
final class ContentWriter {
    private let db: Database
    private let upsertInstance: Statement
    private let updateChangingMetadata: Statement
    private let upsertBody: Statement
    private let deleteValues: Statement
    private let deleteTags: Statement
    private let insertValue: Statement
    private let insertTag: Statement
    private let insertField: Statement
    private let selectField: Statement
    /// module → field name → content_field.field and whether its value rows are written (see
    /// `ValueIndexOnDemand`); fields repeat on every instance of a module.
    private var registeredFields: [String: [String: RegisteredField]] = [:]
    /// Value rows the current batch inserted.
    private var valueRowsWritten = 0
    /// Whether fields met for the first time wait for a search before their value rows are written.
    private let newFieldsOnDemand: Bool
    /// Fields already marked `multi` by this writer.
    private var multiFields: Set<Int64> = []
    private let markMulti: Statement
    private let selectStoredContent: Statement
    /// Instances are written in batches of this many, each updating the trigram index in two
    /// rowid-ordered passes (see `TrigramIndex`) instead of once per instance. Each pass leaves
    /// an FTS5 segment to merge later: 10,000 indexed 800k strings in half the CPU of 2,000.
    private static let batchSize = 10_000

    init(_ db: Database) throws {
        self.db = db
        upsertInstance = try db.cachedStatement(sql: ContentRows.upsertInstanceSQL)
        // An update that keeps module, createdAt, deletedAt and publishedAt (the usual edit) sets
        // only the other columns: SQLite then leaves the six indexes over those columns
        // untouched, where the upsert above rewrites an entry in each (a random page per index
        // and instance).
        updateChangingMetadata = try db.cachedStatement(
            sql: """
                UPDATE content_instance SET name = ?, name_folded = ?, updated_at = ?, removed_at = ?,
                    archived_at = ?, created_by = ?, updated_by = ?, deleted_by = ?, customer_id = ?, revision = ?
                WHERE id = ? RETURNING pk
                """)
        upsertBody = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO content_body (pk, values_json, tags_json, extra_json) VALUES (?, ?, ?, ?)
                """)
        deleteValues = try db.cachedStatement(sql: "DELETE FROM content_value WHERE instance = ?")
        deleteTags = try db.cachedStatement(sql: "DELETE FROM content_tag WHERE instance = ?")
        insertValue = try db.cachedStatement(
            sql: """
                INSERT INTO content_value (instance, field, ord, kind, num, str, folded, trigram) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
        insertTag = try db.cachedStatement(sql: "INSERT INTO content_tag (instance, ord, name, value) VALUES (?, ?, ?, ?)")
        insertField = try db.cachedStatement(sql: "INSERT OR IGNORE INTO content_field (module, name, indexed) VALUES (?, ?, ?)")
        selectField = try db.cachedStatement(sql: "SELECT field, indexed FROM content_field WHERE name = ? AND module = ?")
        newFieldsOnDemand = try ValueIndexOnDemand.isOn(in: db)
        markMulti = try db.cachedStatement(sql: "UPDATE content_field SET multi = 1 WHERE field = ? AND multi = 0")
        selectStoredContent = try db.cachedStatement(
            sql: """
                SELECT i.id, i.module, b.values_json, b.tags_json, b.extra_json, i.created_at, i.deleted_at, i.published_at
                FROM content_instance i JOIN content_body b ON b.pk = i.pk
                WHERE i.id IN (SELECT value FROM json_each(?))
                """)
    }

    /// Inserts or replaces the instances (matched by `id`), in order.
    func upsertAll<S: Sequence>(_ instances: S) throws where S.Element == WireInstance {
        var batch: [WireInstance] = []
        batch.reserveCapacity(Self.batchSize)
        for instance in instances {
            batch.append(instance)
            if batch.count == Self.batchSize {
                try write(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try write(batch)
    }

    /// One batch: the metadata rows first (they give the keys), then the batch's old strings
    /// leave the trigram index in one pass, the values are rewritten, and the new strings go in
    /// in one pass. An id may appear twice; its last version wins, as row by row.
    private func write(_ batch: [WireInstance]) throws {
        // Checked up front so that a bad instance leaves the ones before it fully written and
        // none after it, exactly as writing one by one would.
        var validCount = 0
        var failure: (any Error)?
        for instance in batch {
            do { _ = try ContentRows.validatedCreatedAt(instance) } catch { failure = error; break }
            validCount += 1
        }
        try write(valid: batch.prefix(validCount))
        if let failure { throw failure }
    }

    private func write(valid batch: ArraySlice<WireInstance>) throws {
        guard !batch.isEmpty else { return }
        let encoded = batch.map(ContentRows.Body.init)
        let kept = try keptContent(batch, encoded)
        let pks = try batch.map { try upsertMetadata($0, keepingIndexedColumns: kept.indexedColumns.contains($0.id)) }
        // Only instances whose values change leave and re-enter the trigram index; only those
        // stored before the batch have strings in it to leave.
        let reindexed = Array(Set(zip(batch, pks).filter { !kept.values.contains($0.0.id) }.map(\.1))).sorted()
        let stored = Set(zip(batch, pks).filter { kept.stored.contains($0.0.id) }.map(\.1))
        try TrigramIndex.remove(instances: reindexed.filter(stored.contains), in: db)
        valueRowsWritten = 0
        do {
            // An instance new to the store (a first sync: all of them) has no rows to delete first.
            var written = kept.stored
            for ((instance, content), pk) in zip(zip(batch, encoded), pks) {
                try writeContent(
                    instance, content, pk: pk, hasRows: !written.insert(instance.id).inserted,
                    keepBody: kept.bodies.contains(instance.id), keepValues: kept.values.contains(instance.id),
                    keepTags: kept.tags.contains(instance.id))
            }
        } catch {
            // Whatever rows the batch's instances hold now (new, half-written or untouched), the
            // index must hold them too. When SQLite has already rolled the transaction back (a full
            // disk does), that fails as well: the first error is the one to report.
            try? TrigramIndex.add(instances: reindexed, in: db)
            throw error
        }
        // No value row written (fields whose rows wait for a search): no string to index.
        if valueRowsWritten > 0 { try TrigramIndex.add(instances: reindexed, in: db) }
    }

    /// What `keptContent` found already stored, by instance id.
    private struct KeptContent {
        /// Stored before the batch (the others have no rows yet).
        var stored: Set<String> = []
        /// Value rows (and their trigram entries) already right.
        var values: Set<String> = []
        /// Tag rows already right.
        var tags: Set<String> = []
        /// The whole `content_body` row already right.
        var bodies: Set<String> = []
        /// Stored once in the batch, with the same module, createdAt, deletedAt and publishedAt: the update
        /// leaves the indexes over those columns alone (`updateChangingMetadata`).
        var indexedColumns: Set<String> = []
    }

    /// The ids whose stored values (and, separately, tags, the whole body, the indexed metadata)
    /// already equal every version of them in the batch, in the same module: their rows would be
    /// rewritten identically (value and tag rows are a function of module, values and key), so
    /// they are kept. An edit that changes only metadata, the usual incremental sync, then touches
    /// no value index, trigram page or body, and only the indexes of the columns it changes.
    private func keptContent(_ batch: ArraySlice<WireInstance>, _ encoded: [ContentRows.Body]) throws -> KeptContent {
        // One statement for the whole batch: a first sync (nothing stored) pays one index probe
        // per instance inside SQLite and no per-row round trip.
        struct Stored {
            let module: String, values: String, tags: String, extra: String?, createdAt: Int64, deletedAt: Int64?,
                publishedAt: Int64?
        }
        var stored: [String: Stored] = [:]
        let ids = ContentReader.jsonArray(batch.map(\.id))
        let rows = try Row.fetchCursor(selectStoredContent, arguments: [ids])
        while let row = try rows.next() {
            stored[row[0] as String] = Stored(
                module: row[1], values: row[2], tags: row[3], extra: row[4], createdAt: row[5], deletedAt: row[6],
                publishedAt: row[7])
        }
        if stored.isEmpty { return KeptContent() }  // all new (a first sync): nothing to compare
        var kept = KeptContent(stored: Set(stored.keys))
        var sameValues: [String: Bool] = [:]
        var sameTags: [String: Bool] = [:]
        var sameBody: [String: Bool] = [:]
        var occurrences: [String: Int] = [:]
        for (instance, content) in zip(batch, encoded) {
            occurrences[instance.id, default: 0] += 1
            guard let row = stored[instance.id], row.module == instance.module else {
                sameValues[instance.id] = false
                sameTags[instance.id] = false
                sameBody[instance.id] = false
                continue
            }
            let values = row.values == content.values, tags = row.tags == content.tags
            sameValues[instance.id] = (sameValues[instance.id] ?? true) && values
            sameTags[instance.id] = (sameTags[instance.id] ?? true) && tags
            sameBody[instance.id] = (sameBody[instance.id] ?? true) && values && tags && row.extra == content.extra
            if row.createdAt == instance.createdAt && row.deletedAt == instance.deletedAt && row.publishedAt == instance.publishedAt {
                kept.indexedColumns.insert(instance.id)
            }
        }
        kept.values = Set(sameValues.filter(\.value).keys)
        kept.tags = Set(sameTags.filter(\.value).keys)
        kept.bodies = Set(sameBody.filter(\.value).keys)
        // An id twice in the batch: its first write changes what the second was compared with.
        kept.indexedColumns.subtract(occurrences.filter { $0.value > 1 }.keys)
        return kept
    }

    /// Inserts or replaces the instance's `content_instance` row; returns its key.
    /// `keepingIndexedColumns`: the stored row has the same module, createdAt, deletedAt and publishedAt.
    private func upsertMetadata(_ instance: WireInstance, keepingIndexedColumns: Bool) throws -> Int64 {
        let createdAt = try ContentRows.validatedCreatedAt(instance)
        if keepingIndexedColumns {
            var row = RowBinding(updateChangingMetadata)
            row.add(instance.name)
            row.add(ContentRows.folded(instance.name))
            row.add(instance.updatedAt)
            row.add(instance.removedAt)
            row.add(instance.archivedAt)
            row.add(instance.createdBy)
            row.add(instance.updatedBy)
            row.add(instance.deletedBy)
            row.add(instance.customerId)
            row.add(instance.revision)
            row.add(instance.id)
            if let pk = try Int64.fetchOne(updateChangingMetadata) { return pk }
        }
        var row = RowBinding(upsertInstance)
        row.add(instance.id)
        row.add(instance.module)
        row.add(instance.name)
        row.add(ContentRows.folded(instance.name))
        row.add(createdAt)
        row.add(instance.updatedAt)
        row.add(instance.publishedAt)
        row.add(instance.removedAt)
        row.add(instance.archivedAt)
        row.add(instance.deletedAt)
        row.add(instance.createdBy)
        row.add(instance.updatedBy)
        row.add(instance.deletedBy)
        row.add(instance.customerId)
        row.add(instance.revision)
        guard let pk = try Int64.fetchOne(upsertInstance) else {
            throw ContentStoreError.corruptData("storing instance \(instance.id) returned no row")
        }
        return pk
    }

    /// Replaces the instance's body, value rows and tags (its strings are out of the trigram index
    /// unless `keepValues`); kept rows already hold what the instance would write. `hasRows`:
    /// the key may have value and tag rows already (else there is nothing to delete first).
    private func writeContent(
        _ instance: WireInstance, _ content: ContentRows.Body, pk: Int64, hasRows: Bool,
        keepBody: Bool, keepValues: Bool, keepTags: Bool
    ) throws {
        if !keepBody {
            var row = RowBinding(upsertBody)
            row.add(pk)
            row.add(content.values)
            row.add(content.tags)
            row.add(content.extra)
            try upsertBody.execute()
        }
        if !keepValues {
            if hasRows { try deleteValues.execute(arguments: [pk]) }
            let knownFields = registeredFields[instance.module] ?? [:]  // one lookup per instance, not per value
            for (fieldName, value) in instance.values {
                let field = try knownFields[fieldName] ?? registeredField(module: instance.module, name: fieldName)
                if field.indexed { try insertScalars(of: value, instance: pk, field: field.number) }
            }
        }
        if !keepTags {
            if hasRows { try deleteTags.execute(arguments: [pk]) }
            for (ord, tag) in instance.tags.enumerated() {
                try insertTag.execute(arguments: [pk, ord, tag.name, tag.value])
            }
        }
    }

    /// The value rows of one field of one instance (one per scalar), marking the field `multi`
    /// when it holds several.
    private func insertScalars(of value: JSONValue, instance: Int64, field: Int64) throws {
        var ord: Int64 = 0
        try ContentRows.forEachScalar(in: value, depth: 0) { scalar in
            try insertScalar(scalar, instance: instance, field: field, ord: ord)
            ord += 1
        }
        if ord > 1 && !multiFields.contains(field) {
            try markMulti.execute(arguments: [field])
            multiFields.insert(field)
        }
    }

    private func insertScalar(_ scalar: JSONValue, instance: Int64, field: Int64, ord: Int64) throws {
        let value = ContentRows.Value(scalar, instance: instance, field: field, ord: ord)
        var row = RowBinding(insertValue)
        row.add(instance)
        row.add(field)
        row.add(ord)
        row.add(value.kind.rawValue)
        row.add(value.num)
        row.add(value.str)
        row.add(value.folded)
        row.add(value.trigram)
        try insertValue.execute()
        valueRowsWritten += 1
    }

    struct RegisteredField {
        let number: Int64
        /// Its value rows are written (0 in `content_field.indexed`: they wait for a search).
        let indexed: Bool
    }

    private func registeredField(module: String, name: String) throws -> RegisteredField {
        if let known = registeredFields[module]?[name] { return known }
        try insertField.execute(arguments: [module, name, newFieldsOnDemand ? 0 : 1])
        guard let row = try Row.fetchOne(selectField, arguments: [name, module]) else {
            throw ContentStoreError.corruptData("field \(name) of module \(module) could not be registered")
        }
        let field = RegisteredField(number: row[0], indexed: row[1])
        registeredFields[module, default: [:]][name] = field
        return field
    }

    /// Writes the value rows (and trigram entries) of these fields, which waited for a search
    /// (`ValueIndexOnDemand`), from the stored bodies of their modules' instances; then they are
    /// kept up to date as any other. Fields already indexed are left alone.
    func indexValues(ofFields numbers: [Int64]) throws {
        guard !numbers.isEmpty else { return }
        let list = ContentReader.jsonArray(numbers)
        var waiting: [String: [String: Int64]] = [:]  // module → name → field
        for row in try Row.fetchAll(
            db, sql: "SELECT field, module, name FROM content_field WHERE indexed = 0 AND field IN (SELECT value FROM json_each(?))",
            arguments: [list])
        {
            waiting[row[1], default: [:]][row[2]] = row[0]
        }
        guard !waiting.isEmpty else { return }
        // Batches in key order, each resuming after the last: along the table itself (NOT
        // INDEXED), where a module's index would read the whole module again for every batch.
        let bodies = try db.cachedStatement(
            sql: """
                SELECT i.pk, b.values_json FROM content_instance AS i NOT INDEXED JOIN content_body b ON b.pk = i.pk
                WHERE i.module = ? AND i.pk > ? ORDER BY i.pk LIMIT \(Self.batchSize)
                """)
        for (module, fields) in waiting.sorted(by: { $0.key < $1.key }) {
            var after: Int64 = 0
            while true {
                let batch = try Row.fetchAll(bodies, arguments: [module, after]).map { ($0[0] as Int64, $0[1] as String) }
                guard let last = batch.last else { break }
                for (pk, text) in batch {
                    let parsed: JSONValue
                    do { parsed = try JSONParser.parse(text) } catch {
                        throw ContentStoreError.corruptData("the stored values of instance key \(pk) are not JSON (\(error))")
                    }
                    guard case .object(let values) = parsed else {
                        throw ContentStoreError.corruptData("the stored values of instance key \(pk) are not an object")
                    }
                    for (name, field) in fields {
                        if let value = values[name] { try insertScalars(of: value, instance: pk, field: field) }
                    }
                }
                after = last.0
            }
        }
        let indexed = waiting.values.flatMap(\.values).sorted()
        for field in indexed { try TrigramIndex.add(field: field, in: db) }
        try db.execute(
            sql: "UPDATE content_field SET indexed = 1 WHERE field IN (SELECT value FROM json_each(?))",
            arguments: [ContentReader.jsonArray(indexed)])
    }
}

extension JSONValue {
    static func objectText(_ members: [String: JSONValue]) -> String {
        var out = ""
        out.reserveCapacity(1024)  // an instance's values: ~700 bytes in a typical module
        writeObject(members, into: &out)
        return out
    }
}

extension WireTag {
    /// Reads back a tag written by `jsonValue`.
    init(stored value: JSONValue) throws {
        guard case .object(let members) = value, let name = members["name"]?.stringValue else {
            throw JSONValueError("a stored tag has no name")
        }
        let tagTypeObject = members["tagType"]?.objectValue
        self.init(
            id: members["id"]?.stringValue, name: name, value: members["value"]?.tagText ?? "",
            tagType: tagTypeObject?["id"]?.stringValue ?? members["tagType"]?.stringValue, tagTypeObject: tagTypeObject)
    }

    var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["name": .string(name), "value": .string(value)]
        if let id { members["id"] = .string(id) }
        if let tagTypeObject { members["tagType"] = .object(tagTypeObject) } else if let tagType { members["tagType"] = .string(tagType) }
        return .object(members)
    }
}
