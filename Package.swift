// swift-tools-version:6.0
// The reactive login system: services, gateway and clients built on one reactive core.
import PackageDescription

/// Settings every target shares. Swift 6 language mode already implies complete strict
/// concurrency checking; CI adds `-warnings-as-errors` through the Makefile.
let common: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The vector kernels of Argon2's compression function: one source file compiled for x86-64-v3
/// (AVX2) and for x86-64-v4 (AVX-512); `Argon2` picks one at run time from the CPU's flags. The
/// `Builtin` module gives the kernels LLVM's vector shifts (see Sources/Argon2KernelAVX2). Argon2
/// and its kernels are optimised in debug builds too: the tests hash thousands of times.
#if arch(x86_64)
    let argon2KernelTargets: [Target] = [
        .target(
            name: "Argon2KernelAVX2",
            swiftSettings: common + [
                .enableExperimentalFeature("BuiltinModule"),
                .unsafeFlags(["-Xcc", "-march=x86-64-v3", "-O"]),
            ]),
        .target(
            name: "Argon2KernelAVX512",
            swiftSettings: common + [
                .enableExperimentalFeature("BuiltinModule"),
                .unsafeFlags(["-Xcc", "-march=x86-64-v4", "-O"]),
            ]),
    ]
    let argon2Kernels: [Target.Dependency] = ["Argon2KernelAVX2", "Argon2KernelAVX512"]
#else
    let argon2KernelTargets: [Target] = []
    let argon2Kernels: [Target.Dependency] = []
#endif

let package = Package(
    name: "ReactiveLogin",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Reactive", targets: ["Reactive"]),
        .library(name: "ReactiveTestKit", targets: ["ReactiveTestKit"]),
        .library(name: "RemoteProtocol", targets: ["RemoteProtocol"]),
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
        .library(name: "RemoteStreams", targets: ["RemoteStreams"]),
        .library(name: "Sodium", targets: ["Sodium"]),
        .library(name: "Argon2", targets: ["Argon2"]),
        .library(name: "AuthCore", targets: ["AuthCore"]),
        .library(name: "Contracts", targets: ["Contracts"]),
        .library(name: "GatewayMessages", targets: ["GatewayMessages"]),
        .library(name: "GatewayCore", targets: ["GatewayCore"]),
        .library(name: "ServiceKit", targets: ["ServiceKit"]),
        .library(name: "ProcessSupport", targets: ["ProcessSupport"]),
        .library(name: "HeroCatalogCore", targets: ["HeroCatalogCore"]),
        .library(name: "GatewayClient", targets: ["GatewayClient"]),
        .library(name: "TerminalUI", targets: ["TerminalUI"]),
    ],
    targets: [
        .target(name: "Reactive", swiftSettings: common),
        .target(name: "ReactiveTestKit", dependencies: ["Reactive"], swiftSettings: common),
        .target(name: "RemoteProtocol", swiftSettings: common),
        .executableTarget(
            name: "ReactiveBenchmarks",
            dependencies: ["Reactive"],
            path: "Benchmarks/ReactiveBenchmarks",
            swiftSettings: common
        ),
        // The monotonic clock and the number formats the load generator and the benchmarks share.
        .target(name: "Measuring", swiftSettings: common),
        .target(
            name: "BenchmarkSupport",
            dependencies: ["Contracts", "Measuring", "Reactive", "RemoteStreams", "ZeroMQ"],
            path: "Benchmarks/BenchmarkSupport", swiftSettings: common),
        .executableTarget(
            name: "TransportBenchmarks",
            dependencies: [
                "ZeroMQ", "Reactive", "RemoteProtocol", "RemoteStreams", "BenchmarkSupport", "Measuring",
                "Metrics", "ServiceKit",
            ],
            path: "Benchmarks/TransportBenchmarks",
            exclude: ["raw"],
            swiftSettings: common
        ),
        .executableTarget(
            name: "JSONBenchmarks",
            dependencies: ["Contracts", "RemoteProtocol"],
            path: "Benchmarks/JSONBenchmarks",
            swiftSettings: common
        ),
        .executableTarget(
            name: "AuthBenchmarks",
            dependencies: [
                "Argon2", "Sodium", "Contracts", "Reactive", "RemoteStreams", "BenchmarkSupport", "Measuring",
            ],
            path: "Benchmarks/AuthBenchmarks",
            swiftSettings: common
        ),
        // make bench-scale: auth replicas on the multi-host rig (deploy/local/hosts.sh) sharing PostgreSQL.
        .executableTarget(
            name: "ScaleBenchmarks",
            dependencies: [
                "Contracts", "Reactive", "RemoteStreams", "BenchmarkSupport", "Measuring", "Postgres",
            ],
            path: "Benchmarks/ScaleBenchmarks",
            swiftSettings: common
        ),
        // make bench-argon2: raw Argon2id verifications, libsodium against each kernel of ours.
        .executableTarget(
            name: "Argon2Benchmarks",
            dependencies: ["Argon2", "Sodium", "Measuring"],
            path: "Benchmarks/Argon2Benchmarks",
            swiftSettings: common
        ),
        .systemLibrary(name: "CZeroMQ", providers: [.apt(["libzmq3-dev"])]),
        // What a process needs from its host besides sockets: checked POSIX calls, signals, its state
        // directory, pid file and state files. Below ZeroMQ, so a terminal client links no libzmq for it.
        .target(name: "ProcessSupport", swiftSettings: common),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ", "ProcessSupport"], swiftSettings: common),
        .testTarget(name: "ProcessSupportTests", dependencies: ["ProcessSupport"], swiftSettings: common),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"], swiftSettings: common),
        // Metric families, histograms and the Prometheus text format: pure, no I/O.
        .target(name: "Metrics", swiftSettings: common),
        // Spans, W3C trace context, sampling and the OTLP JSON exporter's thread: no outside packages.
        .target(name: "Tracing", swiftSettings: common),
        .testTarget(name: "TracingTests", dependencies: ["Tracing"], swiftSettings: common),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics"], swiftSettings: common),
        .target(
            name: "RemoteStreams",
            dependencies: ["Metrics", "ProcessSupport", "Reactive", "RemoteProtocol", "Tracing", "ZeroMQ"],
            swiftSettings: common),
        .testTarget(
            name: "RemoteStreamsTests",
            dependencies: [
                "RemoteStreams", "Reactive", "RemoteProtocol", "Tracing", "ZeroMQ", "TestSupport",
            ],
            swiftSettings: common),
        .testTarget(
            name: "ReactiveTests",
            dependencies: ["Reactive", "ReactiveTestKit"],
            swiftSettings: common
        ),
        .testTarget(
            name: "RemoteProtocolTests", dependencies: ["RemoteProtocol", "TestSupport"],
            swiftSettings: common),
        .systemLibrary(name: "CSodium", providers: [.apt(["libsodium-dev"])]),
        .target(name: "Sodium", dependencies: ["CSodium"], swiftSettings: common),
        .testTarget(name: "SodiumTests", dependencies: ["Sodium"], swiftSettings: common),
        // Argon2id and BLAKE2b in Swift (RFC 9106, RFC 7693), hashing into memory the caller owns.
        .target(name: "Argon2", dependencies: argon2Kernels, swiftSettings: common + [.unsafeFlags(["-O"])]),
        .testTarget(name: "Argon2Tests", dependencies: ["Argon2", "Sodium"], swiftSettings: common),
        // The wire types and the method descriptors: no server code, so clients link it freely.
        .target(name: "Contracts", dependencies: ["RemoteProtocol"], swiftSettings: common),
        // The message catalogue and screen messages, shared by the gateway and its clients.
        .target(name: "GatewayMessages", dependencies: ["Contracts"], swiftSettings: common),
        // The direct JSON codings of the body types against their Codable conformances (the oracle).
        .testTarget(
            name: "ContractsTests", dependencies: ["Contracts", "RemoteProtocol", "TestSupport"],
            swiftSettings: common),
        .testTarget(
            name: "GatewayMessagesTests", dependencies: ["GatewayMessages", "Contracts"],
            swiftSettings: common),
        .target(
            name: "GatewayCore",
            dependencies: [
                "Contracts", "GatewayMessages", "Reactive", "RemoteProtocol", "RemoteStreams", "ZeroMQ",
            ],
            swiftSettings: common),
        .testTarget(
            name: "GatewayCoreTests",
            dependencies: [
                "GatewayCore", "Contracts", "GatewayMessages", "Reactive", "ReactiveTestKit",
                "RemoteProtocol", "RemoteStreams", "ZeroMQ", "TestSupport",
            ],
            swiftSettings: common),
        .executableTarget(
            name: "gateway",
            dependencies: [
                "Metrics", "GatewayCore", "ServiceKit", "RemoteStreams", "Contracts", "Tracing",
            ],
            swiftSettings: common),
        .target(
            name: "HeroCatalogCore",
            dependencies: ["Contracts", "Reactive", "RemoteProtocol", "RemoteStreams", "ZeroMQ"],
            swiftSettings: common),
        .testTarget(
            name: "HeroCatalogCoreTests",
            dependencies: [
                "HeroCatalogCore", "Contracts", "Reactive", "RemoteProtocol", "RemoteStreams", "ZeroMQ",
                "TestSupport",
            ],
            swiftSettings: common),
        .executableTarget(
            name: "hero-catalog-service",
            dependencies: [
                "Metrics", "HeroCatalogCore", "ServiceKit", "RemoteStreams", "ZeroMQ", "Contracts",
            ],
            swiftSettings: common),
        .executableTarget(
            name: "CatalogBenchmarks",
            dependencies: ["HeroCatalogCore", "Contracts", "Reactive", "RemoteStreams", "BenchmarkSupport"],
            path: "Benchmarks/CatalogBenchmarks",
            swiftSettings: common),
        .target(
            name: "AuthCore",
            dependencies: [
                "Argon2", "Sodium", "SQLite", "Postgres", "Reactive", "Contracts", "Metrics",
                "RemoteProtocol",
                "RemoteStreams", "Tracing", "ZeroMQ",
            ],
            swiftSettings: common),
        .testTarget(
            name: "AuthCoreTests",
            dependencies: [
                "AuthCore", "Argon2", "Sodium", "SQLite", "Postgres", "Contracts", "Reactive",
                "RemoteProtocol",
                "RemoteStreams", "ZeroMQ", "TestSupport",
            ],
            swiftSettings: common),
        .executableTarget(
            name: "auth-service",
            dependencies: [
                "Metrics",
                "AuthCore", "Argon2", "ServiceKit", "RemoteStreams", "ZeroMQ", "Contracts", "SQLite",
                "Sodium",
            ],
            swiftSettings: common),
        .target(
            name: "ServiceKit",
            dependencies: [
                "Metrics", "ProcessSupport", "ZeroMQ", "Reactive", "RemoteProtocol", "RemoteStreams",
                "Contracts", "Tracing", "CMalloc",
            ],
            swiftSettings: common),
        .testTarget(
            name: "ServiceKitTests",
            dependencies: [
                "ServiceKit", "Contracts", "ProcessSupport", "Reactive", "RemoteStreams", "ZeroMQ",
                "TestSupport", "Tracing",
            ],
            swiftSettings: common),
        .target(
            name: "ValidationCore",
            dependencies: ["Contracts", "Reactive", "RemoteProtocol", "RemoteStreams", "ZeroMQ"],
            swiftSettings: common),
        .testTarget(
            name: "ValidationCoreTests",
            dependencies: [
                "ValidationCore", "Contracts", "Reactive", "ReactiveTestKit", "RemoteProtocol",
                "RemoteStreams", "ZeroMQ", "TestSupport",
            ],
            swiftSettings: common),
        .executableTarget(
            name: "validation-service",
            dependencies: [
                "Metrics", "ValidationCore", "ServiceKit", "RemoteStreams", "Contracts", "Reactive",
            ],
            swiftSettings: common),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "SQLite", dependencies: ["CSQLite"], swiftSettings: common),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite"], swiftSettings: common),
        // libpq for the auth store shared by replicas (docs/storage/postgresql.md).
        .systemLibrary(name: "CLibpq", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "Postgres", dependencies: ["CLibpq"], swiftSettings: common),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "TestSupport"], swiftSettings: common),
        .target(
            name: "LoadTestCore",
            dependencies: [
                "Contracts", "Measuring", "Reactive", "RemoteProtocol", "RemoteStreams", "ZeroMQ",
            ],
            swiftSettings: common),
        .executableTarget(
            name: "auth-loadtest",
            dependencies: [
                "LoadTestCore", "Contracts", "GatewayClient", "Measuring", "RemoteStreams", "ServiceKit",
                "ZeroMQ",
            ],
            swiftSettings: common),
        .testTarget(
            name: "LoadTestCoreTests",
            dependencies: ["LoadTestCore", "Contracts", "RemoteStreams", "ZeroMQ"],
            swiftSettings: common),
        // deploy/: manifests, unit files, the Dockerfile and the local stack script, checked offline.
        // What the test targets that start real programs share.
        .target(
            name: "TestSupport", dependencies: ["ZeroMQ", "Postgres", "Reactive", "RemoteProtocol"],
            path: "Tests/TestSupport", swiftSettings: common),
        .testTarget(
            name: "DeployTests", dependencies: ["Contracts", "RemoteStreams", "TestSupport", "ZeroMQ"],
            swiftSettings: common),
        .target(
            name: "GatewayClient",
            dependencies: [
                "Contracts", "GatewayMessages", "ProcessSupport", "Reactive", "RemoteProtocol",
                "RemoteStreams", "ZeroMQ",
            ],
            swiftSettings: common),
        .executableTarget(
            name: "gateway-cli",
            dependencies: [
                "GatewayClient", "TerminalUI", "Contracts", "ProcessSupport", "Reactive", "RemoteProtocol",
            ],
            swiftSettings: common),
        .testTarget(
            name: "GatewayClientTests",
            dependencies: [
                "GatewayClient", "Contracts", "GatewayMessages", "Reactive", "ReactiveTestKit",
                "RemoteProtocol", "RemoteStreams", "ZeroMQ", "TestSupport",
            ],
            swiftSettings: common),
        .systemLibrary(name: "CNcursesw", providers: [.apt(["libncurses-dev"])]),
        .systemLibrary(name: "CMalloc"),
        .target(
            name: "TerminalUI",
            dependencies: ["CNcursesw", "Contracts", "GatewayMessages", "ProcessSupport", "Reactive"],
            swiftSettings: common),
        .testTarget(
            name: "TerminalUITests", dependencies: ["TerminalUI", "Contracts", "Reactive", "TestSupport"],
            swiftSettings: common),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "Contracts", "ProcessSupport", "RemoteStreams", "RemoteProtocol", "ZeroMQ", "Reactive",
                "ServiceKit", "TestSupport",
            ],
            swiftSettings: common),
        // make bench-abuse: what a client that does not read costs everyone else.
        .executableTarget(
            name: "AbuseBenchmarks",
            dependencies: [
                "BenchmarkSupport", "Contracts", "Measuring", "RemoteProtocol", "RemoteStreams", "ZeroMQ",
            ],
            path: "Benchmarks/AbuseBenchmarks",
            swiftSettings: common),
        // make bench-gateway: keystroke to output through the whole stack, and memory per channel.
        .executableTarget(
            name: "GatewayBenchmarks",
            dependencies: [
                "BenchmarkSupport", "Contracts", "Measuring", "Reactive", "RemoteStreams", "ServiceKit",
                "TestSupport", "ZeroMQ",
            ],
            path: "Benchmarks/GatewayBenchmarks",
            swiftSettings: common),
    ] + argon2KernelTargets,
    swiftLanguageModes: [.v6]
)
