import ArgumentParser
import Foundation
import HaloContentStore
import HaloServer

/// `halo-server module …`: module design for scripts and set-up, with the API's rules
/// (docs/protocol.md §23.10). Modules are named by id or name, fields by name.
struct Module: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, rename and delete modules, and change their fields.",
        subcommands: [List.self, Add.self, Rename.self, Delete.self, Field.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the modules with their fields and instance counts.")
        @OptionGroup var data: DataOption

        func run() async throws {
            for module in try await data.admin().modules() {
                print("\(module.name)  (\(module.id), \(module.instances) instances\(module.isSingle ? ", single" : ""))")
                for (_, field) in module.fields { print("  \(describe(field))") }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a module.", discussion: "Fields are NAME:TYPE, e.g. --field title:Text --field \"size:Single choice=S,M,L\".")
        @OptionGroup var data: DataOption
        @Argument(help: "The module's name.") var name: String
        @Option(name: .customLong("field"), help: "A field, NAME:TYPE[=CHOICE,CHOICE…] (repeatable, in display order).")
        var fields: [String] = []
        @Flag(help: "A single-instance module.") var single = false

        func run() async throws {
            let parsed = try fields.map(parseField)
            let id = try await data.admin()
                .addModule(ModuleSpec(name: name, isSingle: single, fields: parsed))
            print("module id: \(id)")
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a module (its id stays).")
        @OptionGroup var data: DataOption
        @Argument(help: "The module (id or name).") var module: String
        @Argument(help: "The new name.") var name: String

        func run() async throws {
            let admin = try await data.admin()
            try await admin.renameModule(try await admin.module(module).id, to: name)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a module and its instances (sync reports them as deleted).")
        @OptionGroup var data: DataOption
        @Argument(help: "The module (id or name).") var module: String
        @Flag(help: "Delete even when the module holds instances.") var yes = false

        func run() async throws {
            let admin = try await data.admin()
            let found = try await admin.module(module)
            if found.instances > 0 && !yes {
                throw ValidationError("\(found.name) holds \(found.instances) instances; pass --yes to delete them with it")
            }
            print("deleted \(found.name) and \(try await admin.deleteModule(found.id)) instances")
        }
    }

    struct Field: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add, rename, retype, remove or reorder a module's fields.",
            subcommands: [FieldAdd.self, FieldRename.self, FieldType_.self, FieldChoices.self, FieldRemove.self, FieldOrder.self])
    }
}

struct FieldAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a field.")
    @OptionGroup var data: DataOption
    @Argument(help: "The module (id or name).") var module: String
    @Argument(help: "The field, NAME:TYPE[=CHOICE,CHOICE…].") var field: String
    @Option(help: "Its place among the fields (0 = first; default: last).") var position: Int?

    func run() async throws {
        let admin = try await data.admin()
        try await admin.addField(try parseField(field), toModule: try await admin.module(module).id, at: position)
    }
}

struct FieldRename: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a field (instances keep its values).")
    @OptionGroup var data: DataOption
    @Argument(help: "The module (id or name).") var module: String
    @Argument(help: "The field's name.") var field: String
    @Argument(help: "Its new name.") var name: String

    func run() async throws {
        try await changeField(data, module, field, ["name": .string(name)], clearRefused: false)
    }
}

struct FieldType_: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "type", abstract: "Change a field's type: prints what happens to the values, and changes it when none is lost.")
    @OptionGroup var data: DataOption
    @Argument(help: "The module (id or name).") var module: String
    @Argument(help: "The field's name.") var field: String
    @Argument(help: "The new type, e.g. Number or \"Single choice\".") var type: String
    @Flag(help: "Clear the values the new type refuses (export the module first if you need them).") var clearRefused = false
    @Flag(help: "Only print what would happen.") var dryRun = false

    func run() async throws {
        try await changeField(data, module, field, ["fieldType": .string(type)], clearRefused: clearRefused, dryRun: dryRun)
    }
}

struct FieldChoices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "choices", abstract: "Set a choice field's choices.")
    @OptionGroup var data: DataOption
    @Argument(help: "The module (id or name).") var module: String
    @Argument(help: "The field's name.") var field: String
    @Argument(help: "The choices, in order.") var choices: [String]
    @Flag(help: "Clear values that are no longer a choice.") var clearRefused = false

    func run() async throws {
        try await changeField(data, module, field, ["choices": .array(choices.map(JSONValue.string))], clearRefused: clearRefused)
    }
}

struct FieldRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a field and its values.")
    @OptionGroup var data: DataOption
    @Argument(help: "The module (id or name).") var module: String
    @Argument(help: "The field's name.") var field: String
    @Flag(help: "Remove it even when instances hold values for it.") var yes = false

    func run() async throws {
        let admin = try await data.admin()
        let (moduleId, fieldId) = try await locate(admin, module, field)
        let preview = try await admin.removeField(fieldId, ofModule: moduleId, dryRun: true)
        if preview.holding > 0 && !yes {
            throw ValidationError("\(preview.holding) instances hold a value for '\(field)'; pass --yes to remove them with it")
        }
        _ = try await admin.removeField(fieldId, ofModule: moduleId, dryRun: false)
        print("removed '\(field)' and \(preview.holding) values")
    }
}

struct FieldOrder: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "order", abstract: "Put the fields in this order (name every field).")
    @OptionGroup var data: DataOption
    @Argument(help: "The module (id or name).") var module: String
    @Argument(help: "Every field's name, in the new order.") var fields: [String]

    func run() async throws {
        let admin = try await data.admin()
        let found = try await admin.module(module)
        let ids = try fields.map { name in
            guard let id = found.fields.first(where: { $0.field.name == name })?.id else {
                throw ValidationError("\(found.name) has no field named '\(name)'")
            }
            return id
        }
        try await admin.reorderFields(ofModule: found.id, as: ids)
    }
}

/// NAME:TYPE[=CHOICE,CHOICE…] as a field.
private func parseField(_ text: String) throws -> ModuleField {
    do {
        let spec = try FieldSpecText(parsing: text)
        return ModuleField(spec.name, spec.type, choices: spec.choices)
    } catch {
        throw ValidationError(error.description)
    }
}

private func describe(_ field: ModuleField) -> String {
    var text = "\(field.name): \(field.type.name)"
    if let choices = field.choices { text += " = \(choices.joined(separator: ", "))" }
    if field.isDateOnly { text += " (day)" }
    return text
}

private func locate(_ admin: HaloServerAdmin, _ module: String, _ field: String) async throws -> (String, String) {
    let found = try await admin.module(module)
    guard let fieldId = found.fields.first(where: { $0.field.name == field })?.id else {
        throw ValidationError("\(found.name) has no field named '\(field)'")
    }
    return (found.id, fieldId)
}

/// Prints what the change does to stored values, then makes it (unless a dry run).
private func changeField(
    _ data: DataOption, _ module: String, _ field: String, _ change: [String: JSONValue], clearRefused: Bool, dryRun: Bool = false
) async throws {
    let admin = try await data.admin()
    let (moduleId, fieldId) = try await locate(admin, module, field)
    let preview = try await admin.changeField(fieldId, ofModule: moduleId, change, dryRun: true)
    print(preview.summary)
    guard !dryRun else { return }
    _ = try await admin.changeField(fieldId, ofModule: moduleId, change, dryRun: false, clearRefused: clearRefused)
}
