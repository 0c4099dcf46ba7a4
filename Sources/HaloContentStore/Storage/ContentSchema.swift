import GRDB

/// The content tables, all prefixed `content_` so they sit beside the caller's own tables.
///
/// - `content_instance`: one narrow row of metadata per instance (real, indexed columns, so
///   metadata filters and sorts never parse JSON). `pk` is the compact integer key every other
///   table refers to.
/// - `content_body`: the instance's `values` and `tags` as JSON text, read only to build results.
/// - `content_field`: one row per (module, field name); value rows refer to it by number, so one
///   index range covers "field X of modules M…" without a join.
/// - `content_value`: the typed value index behind the search language: one row per scalar of
///   `values` (list elements and localized-text members get one row each). `kind` says what the
///   scalar was (0 null, 1 bool, 2 number, 3 string); numbers and booleans live in `num`, strings
///   in `str`, with `folded` holding a lowercased copy when lowercasing changes it (for `like`).
///   Clustered by instance (cheap rewrite of one instance) and indexed by (field, kind, num, str)
///   so every comparison is one index range. `trigram` is 1 when the string's folded text is in
///   `content_trigram` (see `TrigramIndex`); the others are what `like` still scans.
/// - `content_trigram`: FTS5 trigram index of short ASCII strings, kept by triggers, so that
///   `like` with ≥ 3 characters is an index lookup instead of a scan of every string.
/// - `content_tag`: segmentation tags by (name, value).
enum ContentSchema {
    static func createTables(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE content_instance (
                    pk INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    module TEXT NOT NULL,
                    name TEXT NOT NULL,
                    name_folded TEXT NOT NULL,
                    createdAt INTEGER NOT NULL,
                    updatedAt INTEGER,
                    publishedAt INTEGER,
                    removedAt INTEGER,
                    archivedAt INTEGER,
                    deletedAt INTEGER,
                    createdBy TEXT,
                    updatedBy TEXT,
                    deletedBy TEXT,
                    customerId INTEGER,
                    revision INTEGER
                );

                CREATE TABLE content_body (
                    pk INTEGER PRIMARY KEY,
                    values_json TEXT NOT NULL,
                    tags_json TEXT NOT NULL,
                    extra_json TEXT
                );

                CREATE TABLE content_field (
                    field INTEGER PRIMARY KEY,
                    module TEXT NOT NULL,
                    name TEXT NOT NULL,
                    -- 1 once any instance stored several scalars in this field (a list or an object).
                    multi INTEGER NOT NULL DEFAULT 0,
                    UNIQUE (name, module)
                );

                CREATE TABLE content_value (
                    instance INTEGER NOT NULL,
                    field INTEGER NOT NULL,
                    ord INTEGER NOT NULL,
                    kind INTEGER NOT NULL,
                    num REAL,
                    str TEXT,
                    folded TEXT,
                    trigram INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (instance, field, ord)
                ) WITHOUT ROWID;
                \(TrigramIndex.schemaSQL)

                CREATE TABLE content_tag (
                    instance INTEGER NOT NULL,
                    ord INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    value TEXT NOT NULL,
                    PRIMARY KEY (instance, ord)
                ) WITHOUT ROWID;
                """)
        for index in secondaryIndexes { try db.execute(sql: index.createSQL) }
    }

    /// The indexes that only speed up reads (no constraint depends on them), so that a bulk load
    /// can drop them and build each in one sorted pass at the end
    /// (`ContentTables.withSecondaryIndexesDeferred`).
    static let secondaryIndexes: [SecondaryIndex] = [
        SecondaryIndex("content_instance_module_created", on: "content_instance(module, createdAt)"),
        SecondaryIndex("content_instance_module_updated", on: "content_instance(module, updatedAt)"),
        SecondaryIndex("content_instance_module_deleted", on: "content_instance(module, deletedAt)"),
        SecondaryIndex("content_instance_created", on: "content_instance(createdAt)"),
        SecondaryIndex("content_instance_updated", on: "content_instance(updatedAt)"),
        SecondaryIndex("content_instance_deleted", on: "content_instance(deletedAt) WHERE deletedAt IS NOT NULL"),
        SecondaryIndex("content_value_lookup", on: "content_value(field, kind, num, str, folded)"),
        // The strings `like` must scan even with a trigram pattern (long or non-ASCII ones); kind
        // and trigram are listed so that the scan never reads the table (covering).
        SecondaryIndex(
            "content_value_untrigrammed",
            on: "content_value(field, str, folded, kind, trigram) WHERE kind = 3 AND trigram = 0"),
        SecondaryIndex("content_tag_lookup", on: "content_tag(name, value)"),
    ]

    struct SecondaryIndex {
        let name: String
        /// `table(columns) [WHERE …]`
        let definition: String
        init(_ name: String, on definition: String) {
            self.name = name
            self.definition = definition
        }
        var createSQL: String { "CREATE INDEX IF NOT EXISTS \(name) ON \(definition)" }
        var dropSQL: String { "DROP INDEX IF EXISTS \(name)" }
    }
}

/// The kind column of `content_value`.
enum ValueKind: Int64 {
    case null = 0, bool = 1, number = 2, string = 3
}
