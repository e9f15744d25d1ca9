// swift-tools-version:6.0
// Clubhouse: a host program that loads sports features as shared-library plugins through a C ABI.
// Layout: PluginSDK/ (the contract), Host/ (loader, brokers, CLI), Plugins/ (one folder per feature), Tests/.
import PackageDescription

/// The five feature plugins: plain-Swift domain logic (`<Name>Core`) and a thin PluginKit adapter (`<Name>Plugin`).
let features = ["Putting", "Globe", "Tennis", "Practice", "Scorecard"]

/// Plugins bind their own symbols first, so a module that the host also links never interposes on theirs.
/// They link with the toolchain's lld for packed relative relocations (DT_RELR), which make each
/// `dlopen` cheaper (gold cannot write them), and export their entry alone (PluginSDK/exports.map):
/// the scorecard plugin's dynamic symbol table drops from 5,025 names (247 KB of strings) to 893,
/// four page faults fewer at each load (BENCHMARKS.md, "Issue 33, item 5: loading").
let pluginLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld", "-Xlinker", "-Bsymbolic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                  "-Xlinker", "--version-script=\(Context.packageDirectory)/PluginSDK/exports.map"]),
]

var products: [Product] = [
    .executable(name: "clubhouse", targets: ["clubhouse"]),
    .library(name: "PluginKit", targets: ["PluginKit"]),
    .library(name: "NotesC", type: .dynamic, targets: ["NotesC"]),
    .library(name: "GreeterPlugin", type: .dynamic, targets: ["GreeterPlugin"]),
    // A plugin that fails on purpose, for the isolation tests (never listed in a site).
    .library(name: "FaultyPlugin", type: .dynamic, targets: ["FaultyPlugin"]),
    // The tennis plugin's ball-machine simulator, a program the host starts for `simulator:ballmachine`
    // devices and `clubhouse device simulate ballmachine` (installed beside `clubhouse`).
    .executable(name: "clubhouse-ballmachine", targets: ["clubhouse-ballmachine"]),
]
products += features.map { .library(name: "\($0)Plugin", type: .dynamic, targets: ["\($0)Plugin"]) }
// The parsers' modules as static libraries, for the fuzz package in Fuzz/ (it depends on this one by path).
products += [
    .library(name: "ClubhouseJSON", targets: ["ClubhouseJSON"]),
    .library(name: "ClubhouseHashing", targets: ["ClubhouseHashing"]),
    .library(name: "ClubhouseToolkit", targets: ["ClubhouseToolkit"]),
    .library(name: "ClubhouseHost", targets: ["ClubhouseHost"]),
    .library(name: "ClubhouseLoader", targets: ["ClubhouseLoader"]),
    .library(name: "ClubhousePlatform", targets: ["ClubhousePlatform"]),
    .library(name: "ClubhouseFrontEnds", targets: ["ClubhouseFrontEnds"]),
] + features.map { .library(name: "\($0)Core", targets: ["\($0)Core"]) }

/// Every module that ends up in `clubhouse`, its runner or a bundled plugin is built without the two
/// modules Swift imports into each module unasked, `_Concurrency` and `_StringProcessing`: nothing
/// in the product uses async/await, actors, `Task` or `Regex`, yet each such import autolinks its
/// library, and loading libswift_Concurrency (with libdispatch, libBlocksRuntime, libstdc++) and
/// libswift_StringProcessing with libswift_RegexParser cost every command ≈ 0.9 ms of CPU before
/// `main` (BENCHMARKS.md, "Issue 33, item 5: the libraries no command uses"). ClubhouseStrings gives
/// back the few string searches the standard library alone lacks. Tests and benchmarks keep the defaults.
let productSettings: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-disable-implicit-concurrency-module-import",
                  "-Xfrontend", "-disable-implicit-string-processing-module-import"]),
]

#if arch(x86_64)
let shaSettings: [SwiftSetting] = productSettings + [.define("SHA_EXTENSIONS"), .unsafeFlags(["-Xcc", "-msha"])]
#else
let shaSettings: [SwiftSetting] = productSettings
#endif

var targets: [Target] = [
    // The contract: the C ABI (header only) and the Swift layer for plugin authors.
    .target(name: "CClubhouse", path: "PluginSDK/Sources/CClubhouse"),
    // String searches the standard library lacks without `_StringProcessing` (productSettings says why).
    .target(name: "ClubhouseStrings", path: "PluginSDK/Sources/ClubhouseStrings", swiftSettings: productSettings),
    .target(name: "ClubhouseJSON", dependencies: ["ClubhouseStrings"], path: "PluginSDK/Sources/ClubhouseJSON",
            swiftSettings: productSettings, linkerSettings: [.linkedLibrary("m")]),
    // SHA-256 for content hashes, using the x86 SHA extensions when CPUID reports them: `-msha` lets
    // Swift call those intrinsics and enables nothing past SSE2 for the rest of the module.
    .target(name: "ClubhouseHashing", dependencies: ["ClubhouseStrings"], path: "PluginSDK/Sources/ClubhouseHashing",
            swiftSettings: shaSettings),
    .target(name: "ClubhouseGraphics", dependencies: ["ClubhouseJSON"], path: "PluginSDK/Sources/ClubhouseGraphics",
            swiftSettings: productSettings),
    .target(name: "ClubhouseABI", dependencies: ["CClubhouse", "ClubhouseJSON"], path: "PluginSDK/Sources/ClubhouseABI",
            swiftSettings: productSettings),
    // The pieces plugins share that know nothing of the ABI (migrations, seeded random numbers, the UTC
    // clock, text tables, mesh formats, whole-file reading): their cores depend on it, PluginKit re-exports it.
    .target(name: "ClubhouseToolkit", dependencies: ["ClubhouseJSON", "ClubhouseGraphics"], path: "PluginSDK/Sources/ClubhouseToolkit",
            swiftSettings: productSettings),
    .target(name: "PluginKit", dependencies: ["CClubhouse", "ClubhouseABI", "ClubhouseJSON", "ClubhouseToolkit"],
            path: "PluginSDK/Sources/PluginKit", swiftSettings: productSettings),

    // The host and its runner process: wire, loader, site configuration, brokers, router, runner;
    // and the executable that wires them.
    .systemLibrary(name: "CSQLite", path: "Host/Sources/CSQLite", pkgConfig: "sqlite3",
                   providers: [.apt(["libsqlite3-dev"])]),
    // Two processes over one protocol. Platform (descriptors, spawning, locks, files, confinement)
    // is below everything; Wire (the frames and messages between host and runner, the limits and
    // the config lookup both ends apply) and Loader (opening a plugin library and checking it;
    // versions; the name grammar) are what both processes share. The host (configuration,
    // brokers, runtime, router, the host's side of a runner) and the runner (what runs inside
    // `clubhouse __runner`: the proxy tables and the sandbox) each depend on those alone; the
    // front ends (command line, JSON-RPC server, help) wire both. The executable's main only
    // starts the front ends.
    .target(name: "ClubhousePlatform", dependencies: ["ClubhouseStrings"], path: "Host/Sources/Platform",
            swiftSettings: productSettings),
    .target(name: "ClubhouseWire", dependencies: ["ClubhousePlatform", "CClubhouse", "ClubhouseABI", "ClubhouseJSON"],
            path: "Host/Sources/Wire", swiftSettings: productSettings),
    .target(name: "ClubhouseLoader", dependencies: ["ClubhousePlatform", "CClubhouse", "ClubhouseABI"],
            path: "Host/Sources/Loader", swiftSettings: productSettings),
    .target(name: "ClubhouseRunner", dependencies: ["ClubhouseWire", "ClubhouseLoader", "ClubhousePlatform", "CClubhouse", "ClubhouseABI",
                                                    "ClubhouseJSON", "CSQLite", "CThreadID"],
            path: "Host/Sources/Runner", swiftSettings: productSettings),
    // gettid(2) for the runner's thread wall (Host/Sources/Runner/RunningCall.swift).
    .systemLibrary(name: "CThreadID", path: "Host/Sources/CThreadID"),
    // SQLite's allocator, wrapped so that what a plugin's statement makes SQLite allocate in the
    // host is charged to that statement (the row-of-huge-values attack, RELIABILITY.md).
    .target(name: "CSQLiteMemory", path: "Host/Sources/CSQLiteMemory", linkerSettings: [.linkedLibrary("sqlite3")]),
    .target(name: "ClubhouseHost", dependencies: ["ClubhouseWire", "ClubhouseLoader", "ClubhousePlatform", "CClubhouse", "ClubhouseABI",
                                                  "CSQLite", "CSQLiteMemory",
                                                  "ClubhouseJSON", "ClubhouseHashing", "ClubhouseToolkit"],
            path: "Host/Sources/ClubhouseHost", swiftSettings: productSettings),
    // epoll(7) for serve's event loop (Glibc's module leaves <sys/epoll.h> out).
    .systemLibrary(name: "CEventPoll", path: "Host/Sources/CEventPoll"),
    .target(name: "ClubhouseFrontEnds", dependencies: ["ClubhouseHost", "ClubhouseRunner", "ClubhouseWire", "ClubhouseLoader",
                                                       "ClubhousePlatform", "CClubhouse", "ClubhouseABI", "ClubhouseJSON",
                                                       "ClubhouseHashing", "ClubhouseToolkit", "CEventPoll"],
            path: "Host/Sources/FrontEnds", swiftSettings: productSettings),
    // open/open64 defined in the executable, ahead of glibc's for every library: a sandboxed runner
    // answers libdispatch's /proc/<tid>/stat from its own task folder (proc_open.c says why).
    .target(name: "CProcOpen", path: "Host/Sources/CProcOpen"),
    // libstdc++ early in the executable's library list, so the loader finds its own symbols sooner (shim.h says why).
    .systemLibrary(name: "CLoadOrder", path: "Host/Sources/CLoadOrder"),
    .executableTarget(name: "clubhouse", dependencies: ["ClubhouseFrontEnds", "CProcOpen", "CLoadOrder"], path: "Host/Sources/clubhouse",
                      swiftSettings: productSettings,
                      linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic-symbol=open", "-Xlinker", "--export-dynamic-symbol=open64"])]),

    // Example plugins for third-party authors: one in plain C against the header alone, one in Swift.
    .target(name: "NotesC", dependencies: ["CClubhouse"], path: "Plugins/Examples/NotesC",
            cSettings: [.headerSearchPath("../../../PluginSDK/C")],  // clubhouse_helpers.h, as pkg-config gives it
            linkerSettings: pluginLinkerSettings),
    .target(name: "GreeterPlugin", dependencies: ["PluginKit"], path: "Plugins/Examples/Greeter", swiftSettings: productSettings,
            linkerSettings: pluginLinkerSettings),

    // Release-build benchmarks (Benchmarks/run.sh runs them beside the peers).
    .executableTarget(name: "clubhouse-bench",
                      dependencies: ["ClubhouseFrontEnds", "ClubhouseHost", "ClubhouseWire", "ClubhouseLoader", "ClubhousePlatform",
                                     "ClubhouseJSON", "ClubhouseHashing", "CSQLite", "CClubhouse", "ClubhouseABI"]
                          + features.map { .target(name: "\($0)Core") },
                      path: "Benchmarks/Sources/clubhouse-bench"),
    // The floor for the cold-start benchmark: a Swift program that links Foundation and SQLite and does nothing.
    .executableTarget(name: "clubhouse-baseline", dependencies: ["CSQLite"], path: "Benchmarks/Sources/clubhouse-baseline"),

    // The ball-machine simulator: TennisCore's protocol served on sockets or standard input and output.
    .executableTarget(name: "clubhouse-ballmachine", dependencies: ["TennisCore", "ClubhousePlatform"],
                      path: "Plugins/Tennis/Sources/clubhouse-ballmachine"),

    .target(name: "FaultyPlugin", dependencies: ["PluginKit", "ClubhouseJSON"], path: "Tests/Fixtures/FaultyPlugin",
            swiftSettings: productSettings,
            linkerSettings: pluginLinkerSettings),

    .testTarget(name: "ClubhouseJSONTests", dependencies: ["ClubhouseJSON", "ClubhouseStrings"], path: "Tests/ClubhouseJSONTests"),
    .testTarget(name: "ClubhouseGraphicsTests", dependencies: ["ClubhouseGraphics"], path: "Tests/ClubhouseGraphicsTests"),
    .testTarget(name: "ClubhouseHashingTests", dependencies: ["ClubhouseHashing"], path: "Tests/ClubhouseHashingTests"),
    .testTarget(name: "PluginKitTests", dependencies: ["PluginKit", "CSQLite"], path: "Tests/PluginKitTests"),
    .testTarget(name: "ClubhouseToolkitTests", dependencies: ["ClubhouseToolkit", "ClubhouseJSON"], path: "Tests/ClubhouseToolkitTests"),
    .testTarget(name: "ClubhousePlatformTests", dependencies: ["ClubhousePlatform"], path: "Tests/ClubhousePlatformTests"),
    // The tests that open `simulator:ballmachine` devices need its program built beside them (clubhouse-ballmachine).
    .testTarget(name: "ClubhouseHostTests", dependencies: ["ClubhouseHost", "ClubhouseRunner", "ClubhouseWire", "ClubhouseLoader",
                                                          "ClubhousePlatform", "CSQLite", "ClubhouseABI", "TestSupport",
                                                          "clubhouse-ballmachine"],
                path: "Tests/ClubhouseHostTests"),
    .testTarget(name: "ClubhouseFrontEndsTests", dependencies: ["ClubhouseFrontEnds", "ClubhouseHost", "ClubhouseJSON", "ClubhousePlatform",
                                                               "TestSupport", "clubhouse-ballmachine"],
                path: "Tests/ClubhouseFrontEndsTests"),
    .testTarget(name: "EndToEndTests", dependencies: ["clubhouse", "clubhouse-ballmachine", "ClubhouseHost", "ClubhouseJSON", "CSQLite",
                                                     "TestSupport", "ScorecardCore"], path: "Tests/EndToEndTests"),
    // What several test targets share (the rendered-picture check, reading QR codes back, an HTTP client).
    .target(name: "TestSupport", path: "Tests/TestSupport"),
]
/// The content hashes plugins share: the putting catalog and the practice kernel.
/// and the picture writers (SVG, glTF) of the plugins that draw.
let coreDependencies: [String: [Target.Dependency]] = [
    "Practice": ["ClubhouseHashing", "ClubhouseGraphics"], "Putting": ["ClubhouseHashing", "ClubhouseGraphics"],
    "Globe": ["ClubhouseGraphics"], "Tennis": ["ClubhouseGraphics", "ClubhouseHashing"],
]

/// Cores whose tests are numerical sweeps (earcut fixtures at every rotation; real putts checked by
/// brute force): optimized even in a debug build, so `swift test` stays short; `-enable-testing`
/// still comes with debug builds.
let optimizedInDebug: Set<String> = ["Globe", "Putting"]

for name in features {
    targets += [
        .target(name: "\(name)Core", dependencies: ["ClubhouseJSON", "ClubhouseToolkit"] + (coreDependencies[name] ?? []),
                path: "Plugins/\(name)/Sources/\(name)Core",
                swiftSettings: productSettings
                    + (optimizedInDebug.contains(name) ? [.unsafeFlags(["-O"], .when(configuration: .debug))] : [])),
        .target(name: "\(name)Plugin", dependencies: [.target(name: "\(name)Core"), "PluginKit"],
                path: "Plugins/\(name)/Sources/\(name)Plugin", swiftSettings: productSettings,
                linkerSettings: pluginLinkerSettings),
        .testTarget(name: "\(name)CoreTests",
                    dependencies: [.target(name: "\(name)Core"), "ClubhouseToolkit", "TestSupport"] + (coreDependencies[name] ?? []),
                    path: "Tests/\(name)CoreTests"),
    ]
}

let package = Package(
    name: "Clubhouse",
    products: products,
    targets: targets,
    swiftLanguageModes: [.v6]
)
