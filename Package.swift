// swift-tools-version:6.0
// Clubhouse: a host program that loads sports features as shared-library plugins through a C ABI.
// Layout: PluginSDK/ (the contract), Host/ (loader, brokers, CLI), Plugins/ (one folder per feature), Tests/.
import PackageDescription

/// The five feature plugins: plain-Swift domain logic (`<Name>Core`) and a thin PluginKit adapter (`<Name>Plugin`).
let features = ["Putting", "Globe", "Tennis", "Practice", "Scorecard"]

/// Plugins bind their own symbols first, so a module that the host also links never interposes on theirs.
let pluginLinkerSettings: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "-Bsymbolic"])]

var products: [Product] = [
    .executable(name: "clubhouse", targets: ["clubhouse"]),
    .library(name: "PluginKit", targets: ["PluginKit"]),
    .library(name: "NotesC", type: .dynamic, targets: ["NotesC"]),
    .library(name: "GreeterPlugin", type: .dynamic, targets: ["GreeterPlugin"]),
    // A plugin that fails on purpose, for the isolation tests (never listed in a site).
    .library(name: "FaultyPlugin", type: .dynamic, targets: ["FaultyPlugin"]),
]
products += features.map { .library(name: "\($0)Plugin", type: .dynamic, targets: ["\($0)Plugin"]) }
// The parsers' modules as static libraries, for the fuzz package in Fuzz/ (it depends on this one by path).
products += [
    .library(name: "ClubhouseJSON", targets: ["ClubhouseJSON"]),
    .library(name: "ClubhouseHost", targets: ["ClubhouseHost"]),
] + features.map { .library(name: "\($0)Core", targets: ["\($0)Core"]) }

var targets: [Target] = [
    // The contract: the C ABI (header only, plus status names) and the Swift layer for plugin authors.
    .target(name: "CClubhouse", path: "PluginSDK/Sources/CClubhouse"),
    .target(name: "ClubhouseJSON", path: "PluginSDK/Sources/ClubhouseJSON", linkerSettings: [.linkedLibrary("m")]),
    .target(name: "ClubhouseABI", dependencies: ["CClubhouse"], path: "PluginSDK/Sources/ClubhouseABI"),
    .target(name: "PluginKit", dependencies: ["CClubhouse", "ClubhouseABI", "ClubhouseJSON"], path: "PluginSDK/Sources/PluginKit"),

    // The host: loader, site configuration, brokers, router, runner; and the executable that wires them.
    .systemLibrary(name: "CSQLite", path: "Host/Sources/CSQLite", pkgConfig: "sqlite3",
                   providers: [.apt(["libsqlite3-dev"])]),
    .target(name: "ClubhouseHost", dependencies: ["CClubhouse", "ClubhouseABI", "CSQLite", "ClubhouseJSON"],
            path: "Host/Sources/ClubhouseHost"),
    .executableTarget(name: "clubhouse", dependencies: ["ClubhouseHost"], path: "Host/Sources/clubhouse"),

    // Example plugins for third-party authors: one in plain C against the header alone, one in Swift.
    .target(name: "NotesC", dependencies: ["CClubhouse"], path: "Plugins/Examples/NotesC",
            linkerSettings: pluginLinkerSettings),
    .target(name: "GreeterPlugin", dependencies: ["PluginKit"], path: "Plugins/Examples/Greeter",
            linkerSettings: pluginLinkerSettings),

    // Release-build benchmarks (Benchmarks/run.sh runs them beside the peers).
    .executableTarget(name: "clubhouse-bench",
                      dependencies: ["ClubhouseHost", "ClubhouseJSON", "CSQLite", "CClubhouse", "ClubhouseABI"] + features.map { .target(name: "\($0)Core") },
                      path: "Benchmarks/Sources/clubhouse-bench"),
    // The floor for the cold-start benchmark: a Swift program that links Foundation and SQLite and does nothing.
    .executableTarget(name: "clubhouse-baseline", dependencies: ["CSQLite"], path: "Benchmarks/Sources/clubhouse-baseline"),

    .target(name: "FaultyPlugin", dependencies: ["PluginKit"], path: "Tests/Fixtures/FaultyPlugin",
            linkerSettings: pluginLinkerSettings),

    .testTarget(name: "ClubhouseJSONTests", dependencies: ["ClubhouseJSON"], path: "Tests/ClubhouseJSONTests"),
    .testTarget(name: "PluginKitTests", dependencies: ["PluginKit"], path: "Tests/PluginKitTests"),
    .testTarget(name: "ClubhouseHostTests", dependencies: ["ClubhouseHost", "CSQLite"], path: "Tests/ClubhouseHostTests"),
    .testTarget(name: "EndToEndTests", dependencies: ["clubhouse", "ClubhouseJSON", "CSQLite"], path: "Tests/EndToEndTests"),
]
/// PracticeCore's SHA-256 uses the x86 SHA extensions when CPUID reports them: `-msha` lets Swift call
/// those intrinsics and enables nothing past SSE2 for the rest of the module.
#if arch(x86_64)
let coreSwiftSettings: [String: [SwiftSetting]] = ["Practice": [.define("SHA_EXTENSIONS"), .unsafeFlags(["-Xcc", "-msha"])]]
#else
let coreSwiftSettings: [String: [SwiftSetting]] = [:]
#endif

for name in features {
    targets += [
        .target(name: "\(name)Core", dependencies: ["ClubhouseJSON"], path: "Plugins/\(name)/Sources/\(name)Core",
                swiftSettings: coreSwiftSettings[name] ?? []),
        .target(name: "\(name)Plugin", dependencies: [.target(name: "\(name)Core"), "PluginKit"],
                path: "Plugins/\(name)/Sources/\(name)Plugin", linkerSettings: pluginLinkerSettings),
        .testTarget(name: "\(name)CoreTests", dependencies: [.target(name: "\(name)Core")], path: "Tests/\(name)CoreTests"),
    ]
}

let package = Package(
    name: "Clubhouse",
    products: products,
    targets: targets,
    swiftLanguageModes: [.v6]
)
