// swift-tools-version: 6.2
// HaloDesk: the HALO SDK for Linux (HaloServices), a HALO-compatible server (HaloServer)
// and the GNOME desktop client (HaloDesk), in one package. See docs/architecture.md.
import PackageDescription

/// Every target of ours: Swift 6 mode (complete concurrency checking) and warnings are defects.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "HaloDesk",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "HaloServices", targets: ["HaloServices"]),
        .library(name: "HaloServer", targets: ["HaloServer"]),
        .executable(name: "halo-server", targets: ["halo-server"]),
        .executable(name: "halo", targets: ["halo"]),
        .executable(name: "halo-desk", targets: ["HaloDesk"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // Social sign-in: ID token signatures against a provider's JWKS (server), signing (local provider).
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        // The server's outbound HTTPS to identity providers (JWKS, Facebook's token inspection).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Already in the graph through Hummingbird; the SDK's one-shot loopback listener for browser sign-in.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Already in the graph through Hummingbird; HaloServer uses it to stop the server gracefully.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // halo-server on PostgreSQL: several server processes sharing one database (docs/deploy.md).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Already in the graph through async-http-client; TLS to PostgreSQL (sslmode=prefer|require).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Tests only: property-based tests (random inputs, shrunk on failure) through Swift Testing.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // C libraries: module maps and shim headers only (macros and variadics wrapped as inline functions).
        .systemLibrary(name: "CGtk", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        .systemLibrary(name: "CAdw", pkgConfig: "libadwaita-1", providers: [.apt(["libadwaita-1-dev"])]),
        // No pkgConfig: it would link libcurl at start-up; CCurl/shim.h opens it on first use.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSecret", pkgConfig: "libsecret-1", providers: [.apt(["libsecret-1-dev"])]),

        // The content tables and the HALO search language over them. Shared by the server's storage
        // and the SDK's offline cache, so a query answers the same online and offline.
        .target(
            name: "HaloContentStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                // Search steps its key scans with the C API (see Storage/KeyScan.swift).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict),

        // The HALO SDK for Linux: the seed's public Swift API over libcurl, with an SQLite cache. No GTK.
        .target(
            name: "HaloServices",
            dependencies: [
                "HaloContentStore", "CCurl", "CSecret",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                // The one-shot loopback listener a browser sign-in redirects to.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),

        // A HALO-compatible server, usable in-process (the app's local workspace) and as `halo-server`.
        .target(
            name: "HaloServer",
            dependencies: [
                "HaloContentStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                // PBKDF2 for stored passwords and client secrets (BoringSSL-backed, fast enough).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // Social sign-in: ID token signatures against the providers' JWKS, and HTTPS to them.
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict),
        // A local OpenID Connect provider (Google-style ID tokens, Facebook-style token inspection) with a
        // consent page: browser sign-in end to end on one machine, for the tests and the local workspace.
        .target(
            name: "HaloIdentityProvider",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "halo-server",
            dependencies: ["HaloServer", "HaloIdentityProvider", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict),

        // `halo`: a scripting client over HaloServices.
        .executableTarget(
            name: "halo",
            dependencies: ["HaloServices", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict),

        // The GNOME app. Sources/HaloDesk/Gtk is the typed GTK layer; other folders are windows/features.
        .executableTarget(
            name: "HaloDesk",
            dependencies: ["HaloServices", "HaloServer", "HaloIdentityProvider", "CGtk", "CAdw"],
            swiftSettings: strict,
            // lld packs the ~180,000 relative relocations of the static Swift runtime into DT_RELR
            // (glibc ≥ 2.36): ~2.7 MB less for the loader to read at every start. The executable
            // exports nothing (nothing dlopens it; .ui files bind no handlers by name): 35,000
            // fewer dynamic symbols for every library's symbol lookups to search.
            linkerSettings: [
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"],
                    .when(platforms: [.linux]))
            ]),

        // Offline cache benchmark driver (Benchmarks/offline/run.sh) and the kill -9 sync helper of the tests.
        .executableTarget(
            name: "bench-offline",
            dependencies: ["HaloServices"],
            path: "Benchmarks/OfflineBench",
            swiftSettings: strict),

        // Times the content store's search against a naive json_extract scan (see the file header).
        .executableTarget(
            name: "bench-content-store",
            dependencies: ["HaloContentStore", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks/ContentStoreBench",
            swiftSettings: strict),

        // What several test targets share: a `halo-server` child process, TLS servers made with OpenSSL.
        .target(name: "HaloTestSupport", dependencies: ["HaloServer"], path: "Tests/HaloTestSupport", swiftSettings: strict),
        .testTarget(
            name: "HaloContentStoreTests",
            dependencies: ["HaloContentStore", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict),
        .testTarget(
            name: "HaloServerTests",
            dependencies: [
                "HaloServer", "HaloIdentityProvider", "HaloTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "HaloServicesTests",
            dependencies: [
                "HaloServices", "HaloServer", "HaloIdentityProvider", "HaloTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            // The Selenium script that plays the user in Chromium, run with python3 from the source tree.
            exclude: ["browser"],
            swiftSettings: strict),
        // GUI tests drive real windows under Xvfb; they need the process main thread (XCTest).
        .testTarget(
            name: "HaloDeskTests",
            dependencies: [
                "HaloDesk", "HaloServices", "HaloServer", "HaloIdentityProvider", "HaloTestSupport", "CGtk", "CAdw",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            // AT-SPI drivers the tests run with python3, read from the source tree.
            exclude: ["accessibility"],
            swiftSettings: strict),
    ]
)
