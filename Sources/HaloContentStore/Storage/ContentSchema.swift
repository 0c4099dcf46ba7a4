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
/// - `content_trigram`: FTS5 trigram index of short ASCII strings, kept in step by the writer
///   (`TrigramIndex`), so that `like` with ≥ 3 characters is an index lookup instead of a scan
///   of every string.
///
/// Columns are snake_case, as in every table of ours; the protocol's names (`createdAt`, …)
/// stay on the wire (`metadataColumns` maps them). The first release named the metadata columns
/// in camelCase: `content_v1` still creates them so, and `content_v2_snake_case` renames them, so
/// that a new file and one migrated from that release end with the same schema.
/// - `content_tag`: segmentation tags by (name, value).
enum ContentSchema {
    /// Migration `content_v1`, as released: never edit it, files made by it exist.
    static func createTablesV1(_ db: Database) throws {
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
        try db.execute(
            sql: """
                CREATE INDEX IF NOT EXISTS content_instance_module_created ON content_instance(module, createdAt);
                CREATE INDEX IF NOT EXISTS content_instance_module_updated ON content_instance(module, updatedAt);
                CREATE INDEX IF NOT EXISTS content_instance_module_deleted ON content_instance(module, deletedAt);
                CREATE INDEX IF NOT EXISTS content_instance_created ON content_instance(createdAt);
                CREATE INDEX IF NOT EXISTS content_instance_updated ON content_instance(updatedAt);
                CREATE INDEX IF NOT EXISTS content_instance_deleted ON content_instance(deletedAt) WHERE deletedAt IS NOT NULL;
                CREATE INDEX IF NOT EXISTS content_value_lookup ON content_value(field, kind, num, str, folded);
                CREATE INDEX IF NOT EXISTS content_value_untrigrammed ON content_value(field, str, folded, kind, trigram) WHERE kind = 3 AND trigram = 0;
                CREATE INDEX IF NOT EXISTS content_tag_lookup ON content_tag(name, value);
                """)
    }

    /// Migration `content_v1` on PostgreSQL: the same tables and indexes, with the names
    /// `content_v2_snake_case` gave them on SQLite (PostgreSQL's support began after it). Instead
    /// of the FTS5 trigram table, a pg_trgm index of every string's lowercased text serves `like`
    /// (the LIKE the search runs on `coalesce(folded, str)`, with 3 or more characters).
    static func createTablesOnPostgres(_ db: any SQLExecutor) throws {
        let (text, integer, real, key) = (PostgresTypes.text, PostgresTypes.integer, PostgresTypes.real, PostgresTypes.generatedKey)
        let metadata = camelCaseColumnsOfV1.map(\.new)
        let columnTypes = metadata.map { name in "\(name) \(name.hasSuffix("_by") ? text : integer)" }
        try db.execute(
            """
            CREATE TABLE content_instance (
                pk \(key),
                id \(text) NOT NULL UNIQUE,
                module \(text) NOT NULL,
                name \(text) NOT NULL,
                name_folded \(text) NOT NULL,
                \(columnTypes.joined(separator: ",\n    ")),
                revision \(integer)
            )
            """)
        try db.execute("ALTER TABLE content_instance ALTER COLUMN created_at SET NOT NULL")
        try db.execute(
            "CREATE TABLE content_body (pk \(integer) PRIMARY KEY, values_json \(text) NOT NULL, tags_json \(text) NOT NULL, extra_json \(text))"
        )
        try db.execute(
            """
            CREATE TABLE content_field (
                field \(key), module \(text) NOT NULL, name \(text) NOT NULL,
                multi \(integer) NOT NULL DEFAULT 0, UNIQUE (name, module))
            """)
        try db.execute(
            """
            CREATE TABLE content_value (
                instance \(integer) NOT NULL, field \(integer) NOT NULL, ord \(integer) NOT NULL, kind \(integer) NOT NULL,
                num \(real), str \(text), folded \(text), trigram \(integer) NOT NULL DEFAULT 0,
                PRIMARY KEY (instance, field, ord))
            """)
        try db.execute(
            """
            CREATE TABLE content_tag (
                instance \(integer) NOT NULL, ord \(integer) NOT NULL, name \(text) NOT NULL, value \(text) NOT NULL,
                PRIMARY KEY (instance, ord))
            """)
        // SQLite's indexes when PostgreSQL's support began: not the later `content_v9_sqlite_orders`.
        let later = [lastChangedIndex.name] + sqliteOrderIndexes.map(\.name)
        for index in secondaryIndexes where !later.contains(index.name) {
            try db.execute(index.createSQL)
        }
        try db.execute("CREATE INDEX content_instance_module_updated ON content_instance(module, updated_at)")
        try db.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        try db.execute(
            "CREATE INDEX content_value_trigram ON content_value USING gin (coalesce(folded, str) gin_trgm_ops) WHERE kind = 3")
    }

    /// How many characters (code points, as PostgreSQL's `left` counts) of a string the PostgreSQL
    /// value index holds: a B-tree entry must fit in a third of a page (2,704 bytes), and 200 code
    /// points are at most 800 bytes of UTF-8.
    static let indexedStringPrefix = 200
    /// The indexed prefix: a column PostgreSQL computes from `str` (an expression index would
    /// not serve index-only scans); an equality on `str` also compares it, so the index serves it.
    static let indexedStringPrefixSQL = "str_prefix"

    /// Migration `content_v5_postgres_search` (PostgreSQL only): the indexes the search reads there.
    /// - `content_value_lookup` held whole strings, so storing a string over about 2.7 kB
    ///   failed ("index row size exceeds maximum"); it now holds a bounded prefix (`str_prefix`,
    ///   a generated column: SQLite has no such column), and the search compares the full
    ///   string after the index found the candidates.
    /// - It carries `instance`, so a comparison is an index-only scan (SQLite's WITHOUT ROWID
    ///   indexes carry the key by themselves; PostgreSQL's must be told).
    /// - `content_value_untrigrammed` is SQLite's scan path for `like`; pg_trgm serves it here,
    ///   and it held whole strings too.
    /// - Statistics on (field, kind): a field holds one kind of value, and without them the
    ///   planner multiplies the two selectivities and expects a tenth of the rows.
    /// - `content_instance_changed`: the "updatedAt" order over every module, which SQLite
    ///   reads by merging the modules' `lastChangedIndex` (a merge PostgreSQL does not plan).
    /// - `content_value_trigram` holds each string behind its field number, so that `like` on
    ///   a field reads that field's candidates only (pg_trgm found a short pattern's trigrams in
    ///   most strings of every field, and read each from the table).
    static func reindexValuesOnPostgres(_ db: any SQLExecutor) throws {
        try db.execute("DROP INDEX IF EXISTS content_value_lookup")
        try db.execute("DROP INDEX IF EXISTS content_value_untrigrammed")
        try db.execute(
            "ALTER TABLE content_value ADD COLUMN str_prefix \(PostgresTypes.text) GENERATED ALWAYS AS (left(str, \(indexedStringPrefix))) STORED"
        )
        try db.execute(postgresLookupIndex.createSQL)
        try db.execute("CREATE STATISTICS content_value_field_kind (dependencies, mcv) ON field, kind FROM content_value")
        try db.execute(postgresChangedIndex.createSQL)
        try db.execute("DROP INDEX content_value_trigram")
        try db.execute(
            "CREATE INDEX content_value_trigram ON content_value USING gin (\(postgresTrigramSubject) gin_trgm_ops) WHERE kind = 3")
    }

    /// Migration `content_v6_dense_keys` (PostgreSQL only): every key from 1 to the largest is an
    /// instance's or listed in `content_key_gap`, so a search knows the searched instances from
    /// the largest key and the (few) gaps, where it counted them (4 ms for 100,000 instances,
    /// and a scan of every key once updates had left holes: an identity column draws a key for
    /// every upsert, even one that updates). From here the writer picks keys itself
    /// (`PortableContentWriter.keys(for:)`); the holes updates left so far are listed, and a
    /// deleted row's key joins the list (the server never deletes rows; this keeps the rule by
    /// construction rather than by convention).
    static func keepKeysDenseOnPostgres(_ db: any SQLExecutor) throws {
        try db.execute("ALTER TABLE content_instance ALTER COLUMN pk DROP IDENTITY IF EXISTS")
        try db.execute("CREATE TABLE content_key_gap (pk \(PostgresTypes.integer) PRIMARY KEY)")
        try db.execute(
            """
            INSERT INTO content_key_gap
            SELECT key FROM generate_series(1, (SELECT coalesce(max(pk), 0) FROM content_instance)) AS keys(key)
            WHERE NOT EXISTS (SELECT 1 FROM content_instance WHERE pk = key)
            """)
        try db.execute(
            """
            CREATE FUNCTION content_key_freed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO content_key_gap VALUES (OLD.pk) ON CONFLICT DO NOTHING;
                RETURN NULL;
            END $$
            """)
        try db.execute(
            "CREATE TRIGGER content_key_freed AFTER DELETE ON content_instance FOR EACH ROW EXECUTE FUNCTION content_key_freed()")
    }

    /// Migration `content_v7_postgres_orders` (PostgreSQL only): indexes of the metadata orders
    /// over every module.
    /// - "name" and "publishedAt" get one, so that a page of many matches sorted by them is read
    ///   along the index (`ContentTables.walkedPage`) rather than by sorting every match.
    ///   "publishedAt" puts nulls first, as SQLite orders them ascending (and, read backwards,
    ///   last descending). Names can be longer than an index entry holds: the index holds their
    ///   first code points (`postgresNameOrderPrefix`), which order them as the whole names do,
    ///   ties aside.
    /// - The dates' indexes carry the key, so that a comparison of a date is an index-only scan
    ///   (SQLite's indexes carry the rowid by themselves); before, a date matched by most
    ///   instances read the whole table.
    static let postgresOrderIndexes = [
        SecondaryIndex("content_instance_created", on: "content_instance(created_at) INCLUDE (pk)"),
        SecondaryIndex("content_instance_updated", on: "content_instance(updated_at) INCLUDE (pk)"),
        SecondaryIndex("content_instance_published", on: "content_instance(published_at NULLS FIRST) INCLUDE (pk)"),
        SecondaryIndex("content_instance_name", on: "content_instance((\(postgresNameOrderPrefix)))"),
    ]

    static func addOrderIndexesOnPostgres(_ db: any SQLExecutor) throws {
        for index in postgresOrderIndexes {
            try db.execute(index.dropSQL)
            try db.execute(index.createSQL)
        }
    }

    static let postgresNameOrderPrefix = "left(name, \(indexedStringPrefix))"

    static let postgresLookupIndex = SecondaryIndex(
        "content_value_lookup", on: "content_value(field, kind, num, str_prefix) INCLUDE (instance)")
    static let postgresChangedIndex = SecondaryIndex("content_instance_changed", on: "content_instance((\(lastChangedExpression)))")

    /// PostgreSQL's read-only indexes since `content_v5_postgres_search`: SQLite's (but for its
    /// orders of `content_v9_sqlite_orders`), with the value index of that step instead of
    /// SQLite's two, the pg_trgm index of `like`, the "updatedAt" order over every module, and the
    /// orders of `content_v7_postgres_orders` (see `withSecondaryIndexesDeferred`).
    static let postgresSecondaryIndexes: [SecondaryIndex] =
        secondaryIndexes.filter { index in
            !(["content_value_lookup", "content_value_untrigrammed"] + postgresOrderIndexes.map(\.name) + sqliteOrderIndexes.map(\.name))
                .contains(index.name)
        } + [
            postgresLookupIndex, postgresChangedIndex,
        ] + postgresTrigramIndexes + postgresOrderIndexes

    /// What PostgreSQL's `like` index of long text holds: each string's lowercased text behind
    /// its field number.
    static let postgresTrigramSubject = "(field::text || ':' || coalesce(folded, str))"

    /// Migration `content_v8_postgres_short_trigrams` (PostgreSQL only): `like`'s pg_trgm index is
    /// split as SQLite's trigram index splits strings (`content_value.trigram`, see `TrigramIndex`).
    /// - The short ASCII strings (`trigram = 1`: titles, names, categories) in an index of their
    ///   text alone: a pattern is looked up once for all the fields compared, and the fields
    ///   are checked on the rows it finds. Before, every string was behind its field number and a
    ///   pattern was looked up once per field: ten modules with a "title" were ten lookups, each
    ///   reading the trigram lists of every field's text, long descriptions included (100 ms
    ///   for a word in titles against 30 ms now, on 100,000 instances).
    /// - The others (long or non-ASCII text) stay behind their field number
    ///   (`postgresTrigramSubject`), in their own index: a short pattern occurs in most long
    ///   strings of every field, and the field number keeps a lookup to that field's.
    static let postgresTrigramIndexes = [
        SecondaryIndex(
            "content_value_trigram", on: "content_value USING gin (\(postgresTrigramSubject) gin_trgm_ops) WHERE kind = 3 AND trigram = 0"),
        SecondaryIndex(
            "content_value_trigram_short", on: "content_value USING gin (coalesce(folded, str) gin_trgm_ops) WHERE kind = 3 AND trigram = 1"
        ),
    ]

    static func splitTrigramIndexOnPostgres(_ db: any SQLExecutor) throws {
        for index in postgresTrigramIndexes {
            try db.execute(index.dropSQL)
            try db.execute(index.createSQL)
        }
    }

    /// The metadata columns `content_v1` named in camelCase, with their snake_case names.
    static let camelCaseColumnsOfV1: [(old: String, new: String)] = [
        ("createdAt", "created_at"), ("updatedAt", "updated_at"), ("publishedAt", "published_at"),
        ("removedAt", "removed_at"), ("archivedAt", "archived_at"), ("deletedAt", "deleted_at"),
        ("createdBy", "created_by"), ("updatedBy", "updated_by"), ("deletedBy", "deleted_by"),
        ("customerId", "customer_id"),
    ]

    /// Migration `content_v2_snake_case`: renames the camelCase columns of `content_instance`.
    /// SQLite (≥ 3.25) rewrites the indexes that use them, partial-index conditions included;
    /// the names are written unquoted, as SQLite then copies them, so that the rewritten index
    /// definitions are the text `secondaryIndexes` creates.
    static func renameColumnsToSnakeCase(_ db: Database) throws {
        for (old, new) in camelCaseColumnsOfV1 {
            try db.execute(sql: "ALTER TABLE content_instance RENAME COLUMN \(old) TO \(new)")
        }
    }

    /// When an instance last changed: HALO leaves `updatedAt` null until the first update, so a
    /// new instance is dated by its creation. The "updatedAt" sort orders by it (ours: the
    /// original servers sorted a never-updated instance last, under "recently updated" too).
    static let lastChangedExpression = "coalesce(updated_at, created_at)"

    /// The index of the "updatedAt" sort within a module.
    static let lastChangedIndex = SecondaryIndex(
        "content_instance_module_changed", on: "content_instance(module, \(lastChangedExpression))")

    /// Migration `content_v3_changed_order`: adds `lastChangedIndex`.
    static func addLastChangedIndex(_ db: Database) throws {
        try db.execute(sql: lastChangedIndex.createSQL)
    }

    /// Migration `content_v4_one_change_index`: drops (module, updated_at). The sync's updated
    /// instances are read along `lastChangedIndex`, whose key is `updated_at` for every updated
    /// instance, so that index did the same work twice: every edit moved an entry in both (a
    /// random page each; a tenth of the pages an incremental sync of 1,000 edits writes).
    static func dropUpdatedIndexOfModules(_ db: Database) throws {
        try db.execute(sql: "DROP INDEX IF EXISTS content_instance_module_updated")
    }

    /// The `content_instance` column of each metadata property of the protocol (JSON keys,
    /// `metaSearch` properties, `sort` fields).
    static let metadataColumns: [String: String] = [
        "id": "id", "module": "module", "name": "name", "createdAt": "created_at", "updatedAt": "updated_at",
        "publishedAt": "published_at", "removedAt": "removed_at", "archivedAt": "archived_at",
        "deletedAt": "deleted_at", "createdBy": "created_by", "updatedBy": "updated_by", "deletedBy": "deleted_by",
        "customerId": "customer_id",
    ]

    /// The indexes that only speed up reads (no constraint depends on them), so that a bulk load
    /// can drop them and build each in one sorted pass at the end
    /// (`ContentTables.withSecondaryIndexesDeferred`). Each definition is, to the character, what
    /// SQLite keeps for the index `content_v1` made once `content_v2_snake_case` renamed its
    /// columns (`SchemaMigrationTests`): dropping and re-creating one changes nothing.
    static let secondaryIndexes: [SecondaryIndex] =
        [
            SecondaryIndex("content_instance_module_created", on: "content_instance(module, created_at)"),
            lastChangedIndex,
            SecondaryIndex("content_instance_module_deleted", on: "content_instance(module, deleted_at)"),
            SecondaryIndex("content_instance_created", on: "content_instance(created_at)"),
            SecondaryIndex("content_instance_updated", on: "content_instance(updated_at)"),
            SecondaryIndex("content_instance_deleted", on: "content_instance(deleted_at) WHERE deleted_at IS NOT NULL"),
            SecondaryIndex("content_value_lookup", on: "content_value(field, kind, num, str, folded)"),
            // The strings `like` must scan even with a trigram pattern (long or non-ASCII ones); kind
            // and trigram are listed so that the scan never reads the table (covering).
            SecondaryIndex(
                "content_value_untrigrammed",
                on: "content_value(field, str, folded, kind, trigram) WHERE kind = 3 AND trigram = 0"),
            SecondaryIndex("content_tag_lookup", on: "content_tag(name, value)"),
        ] + sqliteOrderIndexes

    /// Migration `content_v9_sqlite_orders` (SQLite only): indexes of "publishedAt", within each
    /// module and over every module, so that a page of many matches sorted by it is read along
    /// the modules' indexes merged (`ContentTables.mergedIndexWalk`), as pages sorted by the
    /// other dates already were, instead of reading and sorting every match (27 → 9.5 ms for a
    /// quarter's releases sorted by publication), and a `metaSearch` on it seeks instead of
    /// scanning the table ("publishedAt != null": 10 ms for no null).
    /// No index of names: the walk would serve pages sorted by name too (a quarter of 100,000
    /// sorted by name: 54 → 13 ms), but every renamed instance then moves an entry to a random
    /// page of it, and 1,000 renames synced into the cache cost 60 % more CPU (target ≤ 100 ms).
    static let sqliteOrderIndexes = [
        SecondaryIndex("content_instance_module_published", on: "content_instance(module, published_at)"),
        SecondaryIndex("content_instance_published", on: "content_instance(published_at)"),
    ]

    /// The two indexes of `content_value` among `secondaryIndexes`.
    static var valueIndexes: [SecondaryIndex] { secondaryIndexes.filter { $0.definition.hasPrefix("content_value(") } }

    static func addOrderIndexesOnSQLite(_ db: Database) throws {
        for index in sqliteOrderIndexes { try db.execute(sql: index.createSQL) }
    }

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
