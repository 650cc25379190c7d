// swift-tools-version:6.0
// The reactive login system: services, gateway and clients built on one reactive core.
import PackageDescription

/// Settings every target shares. Swift 6 language mode already implies complete strict
/// concurrency checking; CI adds `-warnings-as-errors` through the Makefile.
let common: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "ReactiveLogin",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Reactive", targets: ["Reactive"]),
        .library(name: "ReactiveTestKit", targets: ["ReactiveTestKit"]),
        .library(name: "RemoteProtocol", targets: ["RemoteProtocol"]),
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
        .library(name: "RemoteStreams", targets: ["RemoteStreams"]),
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
        .executableTarget(
            name: "TransportBenchmarks",
            dependencies: ["ZeroMQ", "Reactive", "RemoteProtocol", "RemoteStreams"],
            path: "Benchmarks/TransportBenchmarks",
            exclude: ["raw"],
            swiftSettings: common
        ),
        .executableTarget(
            name: "JSONBenchmarks",
            dependencies: ["RemoteProtocol"],
            path: "Benchmarks/JSONBenchmarks",
            swiftSettings: common
        ),
        .systemLibrary(name: "CZeroMQ", providers: [.apt(["libzmq3-dev"])]),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"], swiftSettings: common),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"], swiftSettings: common),
        .target(
            name: "RemoteStreams", dependencies: ["Reactive", "RemoteProtocol", "ZeroMQ"], swiftSettings: common),
        .testTarget(
            name: "RemoteStreamsTests",
            dependencies: ["RemoteStreams", "Reactive", "RemoteProtocol", "ZeroMQ"],
            swiftSettings: common),
        .testTarget(
            name: "ReactiveTests",
            dependencies: ["Reactive", "ReactiveTestKit"],
            swiftSettings: common
        ),
        .testTarget(name: "RemoteProtocolTests", dependencies: ["RemoteProtocol"], swiftSettings: common),
    ],
    swiftLanguageModes: [.v6]
)
