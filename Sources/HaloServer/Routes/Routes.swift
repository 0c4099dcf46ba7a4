import Hummingbird

/// Every API route, one file per area. The router ignores empty path segments, so trailing
/// slashes (Android) and `//` (Android's middleware helper) reach the same handlers (§1.2).
enum Routes {
    static func register(on router: Router<ServerContext>, _ env: ServerEnvironment) {
        // Origin, Content-Type and the strings of the path, query and headers, before any route.
        router.add(middleware: RequestRulesMiddleware(allowedOrigins: env.configuration.allowedOrigins))
        TokenRoutes.register(router, env)
        VersionRoutes.register(router, env)
        DeviceRoutes.register(router, env)
        IdentifiedUserRoutes.register(router, env)
        PocketRoutes.register(router, env)
        PushRoutes.register(router, env)
        ModuleRoutes.register(router, env)
        ModuleDesignRoutes.register(router, env)
        ImportRoutes.register(router, env)
        SearchRoutes.register(router, env)
        EditionRoutes.register(router, env)
        BatchRoutes.register(router, env)
        SyncRoutes.register(router, env)
        EventRoutes.register(router, env)
    }
}
