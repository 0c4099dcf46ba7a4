import HaloServices

/// What the workspace knows of each module's fields: what the server declares for the module
/// (`getModules(withFields:)`) and, when it declares nothing, what loaded instances show. The
/// editor, the bulk panel and the Pending Edits window all ask here.
@MainActor
final class ModuleFieldCatalog {
    private var known: [String: [FieldDescriptor]] = [:]
    /// Modules whose fields the server declared: their list is the truth, instances add nothing
    /// (rows loaded before a field was renamed or removed must not bring the old name back).
    private var declared: Set<String> = []

    /// Records the fields `module` declares.
    func declare(_ module: Module) {
        guard let id = module.id else { return }
        known[id] = (module.fields ?? []).map(FieldDescriptor.init(declared:))
        declared.insert(id)
    }

    /// The fields known for a module (declared or learned), in first-seen order.
    func fields(moduleId: String) -> [FieldDescriptor] { known[moduleId] ?? [] }

    /// Learns fields from loaded instances of a module (the first 20 are enough to see its shape).
    func learn(from instances: [ContentInstance], moduleId: String) {
        guard !declared.contains(moduleId) else { return }
        var fields = known[moduleId] ?? []
        for instance in instances.prefix(20) {
            for field in FieldDescriptor.fields(of: instance, module: nil) where !fields.contains(where: { $0.name == field.name }) {
                fields.append(field)
            }
        }
        known[moduleId] = fields
    }

    /// The fields to edit `instance` with: its own (typed by `module` when it declares fields),
    /// then the others the module is known to have, so an empty value can still be filled in.
    func fields(for instance: ContentInstance, module: Module?) -> [FieldDescriptor] {
        var result = FieldDescriptor.fields(of: instance, module: module?.fields?.isEmpty == false ? module : nil)
        for field in fields(moduleId: instance.moduleId) where !result.contains(where: { $0.name == field.name }) {
            result.append(field)
        }
        return result
    }

    /// Field name → kind for a module.
    func kinds(moduleId: String) -> [String: FieldKind] {
        Dictionary(fields(moduleId: moduleId).map { ($0.name, $0.kind) }, uniquingKeysWith: { first, _ in first })
    }
}
