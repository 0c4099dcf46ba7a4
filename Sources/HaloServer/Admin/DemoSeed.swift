import Foundation
import GRDB
import HaloContentStore

extension HaloServerAdmin {
    static let demoLocales = ["en-US", "es-ES", "nl-NL"]

    /// A realistic workspace for trying the app: Authors, Articles, Products, Events and
    /// Translations (§15: `key` + `value` fields) using all 21 field types, localized text in three
    /// locales, relations, tags, and drafts / published / archived / expired items; plus an editor
    /// account and an app client. Returns their credentials.
    public func seedDemo(seed: UInt64 = 7) async throws -> DemoCredentials {
        let client = try await addClient(name: "Demo app", editor: false)
        let editorEmail = "editor@halo.local"
        let editorPassword = Identifiers.secret(16)
        try await addUser(email: editorEmail, password: editorPassword, editor: true, name: "Demo", surname: "Editor")
        let now = TokenService.nowMilliseconds()
        try await environment.storage.write { db in
            var seeder = DemoSeeder(db: db, now: now, random: SeedRandom(seed: seed))
            try seeder.run()
        }
        return DemoCredentials(
            clientId: client.clientId, clientSecret: client.clientSecret, editorEmail: editorEmail,
            editorPassword: editorPassword)
    }
}

/// Builds the demo content inside one transaction.
private struct DemoSeeder {
    let db: any SQLExecutor
    let now: Int64
    var random: SeedRandom
    private var instances: [WireInstance] = []

    init(db: any SQLExecutor, now: Int64, random: SeedRandom) {
        self.db = db
        self.now = now
        self.random = random
    }

    static let day: Int64 = 86_400_000

    mutating func run() throws {
        let authors = try module(
            "Authors",
            [
                ModuleField("name", .text), ModuleField("bio", .longText), ModuleField("photo", .image),
            ])
        let articles = try module(
            "Articles",
            [
                ModuleField("title", .localizedText), ModuleField("summary", .text), ModuleField("body", .longText),
                ModuleField("cover", .image), ModuleField("link", .website), ModuleField("video", .youtube),
                ModuleField("author", .singleRelation), ModuleField("related", .multipleRelation),
                ModuleField("topics", .multipleChoice, choices: ["design", "engineering", "travel", "food", "science"]),
                ModuleField("category", .singleChoice, choices: ["news", "opinion", "guide"]),
                ModuleField("featured", .boolean),
            ])
        let products = try module(
            "Products",
            [
                ModuleField("title", .text), ModuleField("price", .number), ModuleField("inStock", .boolean),
                ModuleField("color", .color), ModuleField("specs", .object), ModuleField("sizes", .list),
                ModuleField("size", .singleSelectDropdown, choices: ["S", "M", "L", "XL"]),
                ModuleField("features", .multipleSelectDropdown, choices: ["waterproof", "recycled", "wireless", "organic"]),
                ModuleField("manual", .video), ModuleField("jingle", .audio), ModuleField("releaseDate", .date, isDateOnly: true),
            ])
        let events = try module(
            "Events",
            [
                ModuleField("name", .text), ModuleField("starts", .date), ModuleField("doors", .time),
                ModuleField("venue", .text), ModuleField("poster", .image), ModuleField("description", .localizedText),
                ModuleField("speakers", .multipleRelation),
            ])
        let translations = try module("Translations", [ModuleField("key", .text), ModuleField("value", .localizedText)])

        let firstNames = ["Ada", "Linus", "Grace", "Tim", "Margaret", "Ken", "Barbara", "Dennis", "Radia", "Guido"]
        let lastNames = [
            "Lovelace", "Torvalds", "Hopper", "Berners-Lee", "Hamilton", "Thompson", "Liskov", "Ritchie", "Perlman", "van Rossum",
        ]
        var authorIds: [String] = []
        for index in 0..<10 {
            let name = "\(firstNames[index]) \(lastNames[index])"
            authorIds.append(
                add(
                    authors, name,
                    [
                        "name": .string(name), "bio": .string("<p>\(random.words(30).capitalized).</p>"),
                        "photo": .string("https://picsum.photos/seed/author\(index)/400/400"),
                    ], state: .published))
        }
        var articleIds: [String] = []
        for index in 0..<120 {
            let english = random.title(4)
            let values: [String: JSONValue] = [
                "title": ["en-US": .string(english), "es-ES": .string("\(english) (ES)"), "nl-NL": .string("\(english) (NL)")],
                "summary": .string(random.words(14).capitalized + "."),
                "body": .string("<h2>\(random.title(3))</h2><p>\(random.words(80))</p>"),
                "cover": .string("https://picsum.photos/seed/article\(index)/1200/600"),
                "link": .string("https://example.com/articles/\(index)"),
                "video": .string("https://www.youtube.com/watch?v=dQw4w9WgXc\(index % 10)"),
                "author": .string(random.pick(authorIds)),
                "related": .array(articleIds.suffix(3).map(JSONValue.string)),
                "topics": .array([.string(random.pick(["design", "engineering", "travel"])), .string(random.pick(["food", "science"]))]),
                "category": .string(random.pick(["news", "opinion", "guide"])),
                "featured": .bool(index % 7 == 0),
            ]
            articleIds.append(add(articles, english, values, state: state(index), tags: tags(index)))
        }
        let colors = ["#1a73e8", "#e8711a", "#2e7d32", "#6a1b9a", "#ffd600"]
        for index in 0..<150 {
            let title = "\(random.pick(["Trail", "City", "Studio", "Harbor", "Summit"])) \(random.title(2)) \(index + 1)"
            let values: [String: JSONValue] = [
                "title": .string(title), "price": .number(Double(random.next() % 50_000) / 100 + 5),
                "inStock": .bool(random.next() % 3 != 0), "color": .string(random.pick(colors)),
                "specs": [
                    "weight": .number(Double(random.next() % 3000) / 10),
                    "material": .string(random.pick(["wool", "steel", "oak", "cotton"])),
                ],
                "sizes": ["S", "M", "L"], "size": .string(random.pick(["S", "M", "L", "XL"])),
                "features": .array([.string(random.pick(["waterproof", "recycled"])), .string(random.pick(["wireless", "organic"]))]),
                "manual": .string("https://videos.example.com/manuals/\(index).mp4"),
                "jingle": .string("https://audio.example.com/jingles/\(index % 12).mp3"),
                "releaseDate": .number(Double((now / Self.day - Int64(random.next() % 700)) * Self.day)),
            ]
            add(products, title, values, state: state(index), tags: tags(index + 1))
        }
        let cities = ["Amsterdam", "Madrid", "Lisbon", "Berlin", "Rotterdam", "Valencia"]
        for index in 0..<60 {
            let city = random.pick(cities)
            let name =
                "\(random.pick(["Design", "Swift", "Open Data", "Mobile", "Cloud"])) \(random.pick(["Meetup", "Summit", "Workshop", "Night"])) \(city)"
            let starts = now + Int64(index - 20) * 3 * Self.day
            let summary = random.words(20)
            let values: [String: JSONValue] = [
                "name": .string(name), "starts": .number(Double(starts)),
                "doors": .number(Double((18 * 60 + Int64(index % 6) * 30) * 60_000)),
                "venue": .string("\(random.title(2)) Hall, \(city)"),
                "poster": .string("https://picsum.photos/seed/event\(index)/800/1200"),
                "description": ["en-US": .string(summary), "es-ES": .string("\(summary) (es)"), "nl-NL": .string("\(summary) (nl)")],
                "speakers": .array([.string(random.pick(authorIds)), .string(random.pick(authorIds))]),
            ]
            add(events, name, values, state: index < 20 ? .archived : .published, tags: tags(index + 2))
        }
        let texts: [(String, String, String, String)] = [
            ("welcome", "Welcome", "Bienvenido", "Welkom"), ("sign_in", "Sign in", "Iniciar sesión", "Inloggen"),
            ("sign_out", "Sign out", "Cerrar sesión", "Uitloggen"), ("search", "Search", "Buscar", "Zoeken"),
            ("save", "Save", "Guardar", "Opslaan"), ("cancel", "Cancel", "Cancelar", "Annuleren"),
            ("delete", "Delete", "Eliminar", "Verwijderen"), ("settings", "Settings", "Ajustes", "Instellingen"),
            ("offline", "You are offline", "Sin conexión", "Je bent offline"), ("retry", "Retry", "Reintentar", "Opnieuw"),
            ("articles", "Articles", "Artículos", "Artikelen"), ("products", "Products", "Productos", "Producten"),
            ("events", "Events", "Eventos", "Evenementen"), ("loading", "Loading…", "Cargando…", "Laden…"),
            ("empty", "Nothing here yet", "Nada por aquí", "Nog niets hier"),
            ("error", "Something went wrong", "Algo salió mal", "Er ging iets mis"),
            ("price", "Price", "Precio", "Prijs"), ("in_stock", "In stock", "Disponible", "Op voorraad"),
            ("sold_out", "Sold out", "Agotado", "Uitverkocht"), ("read_more", "Read more", "Leer más", "Lees meer"),
        ]
        for (key, english, spanish, dutch) in texts {
            add(
                translations, key,
                ["key": .string(key), "value": ["en-US": .string(english), "es-ES": .string(spanish), "nl-NL": .string(dutch)]],
                state: .published)
        }
        try ContentTables.upsert(contentsOf: instances, in: db)
    }

    enum State { case draft, published, archived, expired, scheduled }

    private func state(_ index: Int) -> State {
        switch index % 10 {
        case 0, 1: return .draft
        case 2: return .archived
        case 3: return .expired
        case 4: return .scheduled
        default: return .published
        }
    }

    private func tags(_ index: Int) -> [WireTag] {
        switch index % 4 {
        case 0: return [SegmentationTags.normalized(WireTag(name: "Platform Name", value: "ios", tagType: "000000000000000000000001"))]
        case 1: return [SegmentationTags.normalized(WireTag(name: "Platform Name", value: "android", tagType: "000000000000000000000001"))]
        case 2: return [SegmentationTags.normalized(WireTag(name: "Spain", value: "ES", tagType: "000000000000000000000003"))]
        default: return []
        }
    }

    private func module(_ name: String, _ fields: [ModuleField]) throws -> String {
        try ModuleCatalog.create(ModuleSpec(name: name, fields: fields), createdBy: "Demo Editor", now: now - 400 * Self.day, in: db)
    }

    @discardableResult
    private mutating func add(
        _ module: String, _ name: String, _ values: [String: JSONValue], state: State, tags: [WireTag] = []
    ) -> String {
        let id = random.objectID()
        let created = now - Int64(random.next() % 365) * Self.day - Int64(instances.count) * 1000
        let updated = created + Int64(random.next() % 10) * Self.day
        var instance = WireInstance(
            id: id, module: module, name: name, values: values, tags: tags, createdAt: created, updatedAt: min(updated, now),
            createdBy: "Demo Editor", updatedBy: "Demo Editor", customerId: 1, revision: 0)
        switch state {
        case .draft: break
        case .published: instance.publishedAt = created
        case .archived:
            instance.publishedAt = created
            instance.archivedAt = min(updated, now)
        case .expired:
            instance.publishedAt = created
            instance.removedAt = min(updated, now)
        case .scheduled: instance.publishedAt = now + 7 * Self.day
        }
        instances.append(instance)
        return id
    }
}
