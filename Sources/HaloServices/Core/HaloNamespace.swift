/// The seed manual's module prefixes: its samples write `Halo.Manager.core…`, `HALO.Manager…`,
/// `Halo.Device`, `Halo.Result<…>` (the iOS module was `Halo`; ours is `HaloServices`), so the
/// names they qualify are reachable through these namespaces as well.
public enum Halo {
    public typealias Manager = HaloServices.Manager
    public typealias CoreManager = HaloServices.CoreManager
    public typealias ManagerDelegate = HaloServices.ManagerDelegate
    public typealias Device = HaloServices.Device
    public typealias Addon = HaloServices.Addon
    public typealias Network = HaloServices.Network
    public typealias SearchQuery = HaloServices.SearchQuery
    public typealias Locale = HaloLocale
    public typealias Result<Value> = Swift.Result<Value, HaloError>
}

/// The manual's other spelling of the prefix (`HALO.Manager.core.addLogger(…)`).
public typealias HALO = Halo
