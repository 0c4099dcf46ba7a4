import ArgumentParser
import Foundation
import HaloServices

/// `halo module …`: module design on a server (our extension, docs/protocol.md §23.10), for
/// editor credentials. Modules are named by id or name, fields by name.
struct ModuleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "module", abstract: "Create, rename and delete modules, and change their fields (editors).",
        subcommands: [Add.self, Rename.self, Delete.self, FieldCommand.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a module; prints its id.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The module's name.") var name: String
        @Option(name: .customLong("field"), help: "A field, NAME:TYPE[=CHOICE,CHOICE…] (repeatable, in display order).")
        var fields: [String] = []
        @Flag(help: "A single-instance module.") var single = false

        func run() async throws {
            let definitions = try fields.map(fieldDefinition)
            let core = try await global.startSession()
            let module = try await core.content.createModule(name: name, isSingle: single, fields: definitions)
            if global.json { printJSON(module.wireJSON) } else { print(module.id ?? "") }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a module (its id stays).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The module (id or name).") var module: String
        @Argument(help: "The new name.") var name: String

        func run() async throws {
            let core = try await global.startSession()
            _ = try await core.content.renameModule(id: try await find(module, core).id ?? "", to: name)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a module and its instances (sync reports them as deleted).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The module (id or name).") var module: String

        func run() async throws {
            let core = try await global.startSession()
            let found = try await find(module, core)
            print("deleted \(found.name ?? "") and \(try await core.content.deleteModule(id: found.id ?? "")) instances")
        }
    }
}

struct FieldCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "field", abstract: "Add, rename, retype, remove or reorder a module's fields.",
        subcommands: [Add.self, Rename.self, Retype.self, Remove.self, Order.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a field.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The module (id or name).") var module: String
        @Argument(help: "The field, NAME:TYPE[=CHOICE,CHOICE…].") var field: String
        @Option(help: "Its place among the fields (0 = first; default: last).") var position: Int?

        func run() async throws {
            let definition = try fieldDefinition(field)
            let core = try await global.startSession()
            _ = try await core.content.addField(definition, toModule: try await find(module, core).id ?? "", at: position)
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a field (instances keep their values).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The module (id or name).") var module: String
        @Argument(help: "The field's name.") var field: String
        @Argument(help: "Its new name.") var name: String

        func run() async throws {
            try await change(global, module, field) { $0.name = name }
        }
    }

    struct Retype: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "type", abstract: "Change a field's type (and choices): prints what happens to the values first.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The module (id or name).") var module: String
        @Argument(help: "The field's name.") var field: String
        @Argument(help: "The new type and choices, TYPE[=CHOICE,CHOICE…], e.g. Number or \"Single choice=S,M\".") var type: String
        @Flag(help: "Clear the values the new type refuses (export the module first if you need them).") var clearRefused = false
        @Flag(help: "Only print what would happen.") var dryRun = false

        func run() async throws {
            let spec = try fieldDefinition("x:" + type)
            try await change(global, module, field, refused: clearRefused ? .clear : .cancel, dryRun: dryRun) { definition in
                definition.type = spec.type
                definition.choices = spec.choices
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a field and its values.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The module (id or name).") var module: String
        @Argument(help: "The field's name.") var field: String
        @Flag(help: "Remove it even when instances hold values for it.") var yes = false

        func run() async throws {
            let core = try await global.startSession()
            let (moduleId, fieldId, _) = try await locate(module, field, core)
            let preview = try await core.content.removeField(fieldId, ofModule: moduleId, dryRun: true).report
            if preview.holding > 0 && !yes {
                throw ValidationError("\(preview.holding) instances hold a value for '\(field)'; pass --yes to remove them with it")
            }
            _ = try await core.content.removeField(fieldId, ofModule: moduleId)
            print("removed '\(field)' and \(preview.holding) values")
        }
    }

    struct Order: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Put the fields in this order (name every field).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The module (id or name).") var module: String
        @Argument(help: "Every field's name, in the new order.") var fields: [String]

        func run() async throws {
            let core = try await global.startSession()
            let found = try await find(module, core)
            let ids = try fields.map { name in
                guard let id = found.fields?.first(where: { $0.name == name })?.id else {
                    throw HaloError.invalidInput(message: "\(found.name ?? "The module") has no field named '\(name)'")
                }
                return id
            }
            _ = try await core.content.reorderFields(ofModule: found.id ?? "", as: ids)
        }
    }
}

/// NAME:TYPE[=CHOICE,CHOICE…] as a field definition.
private func fieldDefinition(_ text: String) throws -> FieldDefinition {
    do {
        let spec = try FieldSpecText(parsing: text)
        return FieldDefinition(spec.name, spec.type, choices: spec.choices)
    } catch {
        throw ValidationError("\(error)")
    }
}

/// The module with this id or name, with its fields.
private func find(_ idOrName: String, _ core: CoreManager) async throws -> Module {
    let modules = try await core.content.getModules(withFields: true).modules
    guard let module = modules.first(where: { $0.id == idOrName }) ?? modules.first(where: { $0.name == idOrName }) else {
        throw HaloError.invalidInput(message: "No module named or with the id '\(idOrName)'")
    }
    return module
}

private func locate(_ module: String, _ field: String, _ core: CoreManager) async throws -> (String, String, ModuleField) {
    let found = try await find(module, core)
    guard let definition = found.fields?.first(where: { $0.name == field }), let fieldId = definition.id else {
        throw HaloError.invalidInput(message: "\(found.name ?? "The module") has no field named '\(field)'")
    }
    return (found.id ?? "", fieldId, definition)
}

/// Prints what changing the field does to stored values, then changes it (unless a dry run).
private func change(
    _ global: GlobalOptions, _ module: String, _ field: String, refused: RefusedValues = .cancel, dryRun: Bool = false,
    _ edit: (inout FieldDefinition) -> Void
) async throws {
    let core = try await global.startSession()
    let (moduleId, fieldId, current) = try await locate(module, field, core)
    var definition = FieldDefinition(current)
    edit(&definition)
    let preview = try await core.content.changeField(fieldId, ofModule: moduleId, to: definition, dryRun: true).report
    print(preview.summary)
    guard !dryRun else { return }
    _ = try await core.content.changeField(fieldId, ofModule: moduleId, to: definition, refusedValues: refused)
}

/// `halo export MODULE`: the module's instances as HALO batch JSON or CSV.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export a module's instances as HALO batch JSON or CSV (one column per field; title[es-ES] per locale).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The module (id or name).") var module: String
    @Option(help: "json or csv (default: from --output's extension, else json).") var format: TransferFormat?
    @Option(name: .shortAndLong, help: "Write to this file (default: standard output).") var output: String?

    func run() async throws {
        let core = try await global.startSession()
        let found = try await find(module, core)
        let chosen = format ?? output.map(TransferFormat.init(fileName:)) ?? .json
        let data = try await core.content.exportModule(id: found.id ?? "", format: chosen)
        if let output {
            try data.write(to: URL(fileURLWithPath: output), options: .atomic)
        } else {
            FileHandle.standardOutput.write(data)
        }
    }
}

/// `halo import MODULE FILE`: all rows checked first; all or nothing.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import instances from HALO batch JSON or CSV: every row is checked first, and nothing is imported while one is refused.",
        discussion: "A row with an id updates that instance (or creates it with that id); a row without one creates an instance.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The module (id or name).") var module: String
    @Argument(help: "The file (.csv or .json).") var file: String
    @Option(help: "json or csv (default: from the file's extension).") var format: TransferFormat?

    func run() async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let core = try await global.startSession()
        let found = try await find(module, core)
        let result = try await core.content.importModule(
            id: found.id ?? "", file: data, format: format ?? TransferFormat(fileName: file))
        guard result.problems.isEmpty else {
            for problem in result.problems { FileHandle.standardError.write(Data("halo: \(file): \(problem)\n".utf8)) }
            throw HaloError.invalidInput(message: "\(result.problemCount) problems in the file (listed above); nothing was imported")
        }
        print("\(result.created) created, \(result.updated) updated, \(result.unchanged) unchanged")
    }
}

extension TransferFormat: ExpressibleByArgument {}
