/// What search needs to know about modules that the content tables do not hold: the caller
/// (the server's module table, the SDK's cached module list) answers these.
public struct SearchSchema {
    /// Module ids named by `moduleName` / `moduleNames` (a name may match several modules).
    public var moduleIdsForName: (String) -> [String]
    /// Names of the Localized text fields of a module (§9.3), for `locale`.
    public var localizedFields: (_ moduleId: String) -> Set<String>
    /// Names of the relation fields (single and multiple) of a module, for `include: ["all"]`.
    public var relationFields: (_ moduleId: String) -> Set<String>

    public init(
        moduleIdsForName: @escaping (String) -> [String] = { _ in [] },
        localizedFields: @escaping (_ moduleId: String) -> Set<String> = { _ in [] },
        relationFields: @escaping (_ moduleId: String) -> Set<String> = { _ in [] }
    ) {
        self.moduleIdsForName = moduleIdsForName
        self.localizedFields = localizedFields
        self.relationFields = relationFields
    }
}
