// The Swift SDK a Swift plugin builds against, outside the repository: `scripts/install.sh PREFIX`
// copies PluginKit and the modules it exposes (CClubhouse, ClubhouseABI, ClubhouseStrings, ClubhouseJSON,
// ClubhouseGraphics, ClubhouseToolkit) as sources into `PREFIX/share/clubhouse/PluginSDK/`, and
// writes that package's manifest with `clubhouse __swift-sdk-manifest` — so the manifest names the
// exact compiler that built this clubhouse and refuses any other (`#error` in the manifest: the
// message comes before anything compiles).
//
// Sources, not built modules: a Swift module file is readable only by the compiler that wrote it
// (PluginKit is not built for library evolution), and a plugin links its own copy of PluginKit
// anyway (nothing Swift crosses the ABI); the sources plus the exact-toolchain check give the same
// result as the bundled plugins' build, for any configuration (debug or release) the author picks.

import ClubhouseABI
import ClubhouseHost
import ClubhousePlatform
import ClubhouseLoader

enum SwiftSDK {
    /// The folder name of the installed package (also its SwiftPM identity, lowercased).
    static let folderName = "PluginSDK"

    /// The modules the package holds, in dependency order: (name, its dependencies, products it is in).
    static let modules: [(name: String, dependencies: [String], product: Bool)] = [
        ("CClubhouse", [], false),
        // String searches without `_StringProcessing` (ClubhouseJSON re-exports them).
        ("ClubhouseStrings", [], false),
        ("ClubhouseJSON", ["ClubhouseStrings"], true),
        ("ClubhouseGraphics", ["ClubhouseJSON"], true),
        ("ClubhouseABI", ["CClubhouse", "ClubhouseJSON"], false),
        ("ClubhouseToolkit", ["ClubhouseJSON", "ClubhouseGraphics"], true),
        ("PluginKit", ["CClubhouse", "ClubhouseABI", "ClubhouseJSON", "ClubhouseToolkit"], true),
    ]

    /// The compiler this clubhouse was built by ("6.3.1"): the one a Swift plugin must be built by.
    /// `CLUBHOUSE_TEST_SWIFT_COMPILER` stands in for it in the tests (a toolchain they do not have).
    static var compiler: String {
        if let forced = FileSystem.environment("CLUBHOUSE_TEST_SWIFT_COMPILER"), !forced.isEmpty { return forced }
        return BuildFingerprint.swiftCompiler
    }

    /// The `#if` condition that holds for exactly that compiler: "compiler(>=6.3.1) && !compiler(>=6.3.2)".
    static func compilerCondition(_ version: String) -> String {
        if version.hasSuffix("+") { return "compiler(>=\(version.dropLast()))" }
        var parts = version.split(separator: ".").compactMap { Int($0) }
        guard !parts.isEmpty else { return "compiler(>=\(version))" }
        // "6.3" is every 6.3 before 6.3.1 (the fingerprint's own steps); "6.3.1" is every 6.3.1.x.
        if parts.count < 3 { parts.append(1) } else { parts[parts.count - 1] += 1 }
        return "compiler(>=\(version)) && !compiler(>=\(parts.map(String.init).joined(separator: ".")))"
    }

    /// The target condition for the host's triple ("arch(x86_64) && os(Linux)").
    static var targetCondition: String {
        let arch = BuildFingerprint.target.hasPrefix("aarch64") ? "arm64" : "x86_64"
        return "arch(\(arch)) && os(Linux)"
    }

    /// The lines of a manifest that stop a build by any other toolchain, naming what is needed.
    static func toolchainCheck(what: String) -> String {
        let swift = compiler
        return """
        // \(what) must be built by Swift \(swift) for \(BuildFingerprint.target): the toolchain that built
        // the clubhouse it runs in (`clubhouse --version` prints it). A Swift plugin runs on
        // the host's Swift runtime and Swift has no stable ABI on Linux, so no other compiler will do;
        // `swift --version` shows which one you have.
        #if !(\(compilerCondition(swift)))
        #error("\(what) must be built by Swift \(swift), the toolchain of the clubhouse it runs in (clubhouse --version prints it); this is another Swift compiler (swift --version shows which). Build with Swift \(swift), or use a clubhouse built by your toolchain")
        #endif
        #if !(\(targetCondition))
        #error("\(what) must be built for \(BuildFingerprint.target), the platform of the clubhouse it runs in")
        #endif
        """
    }

    /// The installed package's Package.swift (`clubhouse __swift-sdk-manifest`).
    static func manifest() -> String {
        var targets = ""
        for module in modules {
            let dependencies = module.dependencies.map { "\"\($0)\"" }.joined(separator: ", ")
            let linker = module.name == "ClubhouseJSON" ? ", linkerSettings: [.linkedLibrary(\"m\")]" : ""
            targets += "        .target(name: \"\(module.name)\", dependencies: [\(dependencies)], path: \"Sources/\(module.name)\"\(linker)),\n"
        }
        let products = modules.filter(\.product).map { "        .library(name: \"\($0.name)\", targets: [\"\($0.name)\"]),\n" }.joined()
        return """
        // swift-tools-version:6.0
        // The Clubhouse Swift SDK \(ClubhouseVersion.string) (plugin ABI \(BuildFingerprint.abi)): PluginKit and the modules it
        // exposes, as sources. A Swift plugin depends on this folder by path and links its own copy
        // (`clubhouse plugin new NAME --lang swift` writes such a package). Written by scripts/install.sh.
        import PackageDescription

        \(toolchainCheck(what: "A Clubhouse plugin"))

        let package = Package(
            name: "\(folderName)",
            products: [
        \(products)    ],
            targets: [
        \(targets)    ],
            swiftLanguageModes: [.v6]
        )

        """
    }

    /// Where a Swift plugin's package finds the SDK: `--sdk PATH` (an installed SDK or a checkout),
    /// else the SDK installed beside this clubhouse (`PREFIX/share/clubhouse/PluginSDK` for
    /// `PREFIX/bin/clubhouse`), else the checkout this clubhouse was built in. The package path
    /// and the SwiftPM identity its products are named with.
    static func locate(given: String?) throws(CLIError) -> (path: String, identity: String) {
        if let given {
            let root = FileSystem.absolute(given)
            guard let found = package(at: root) else {
                throw CLIError(status: .invalidArgument, message: "\(root) is neither an installed Clubhouse Swift SDK (PREFIX/share/clubhouse/\(folderName), with Package.swift and Sources/PluginKit) nor a Clubhouse checkout (Package.swift and PluginSDK/); give --sdk one of them, or leave it out to use the SDK installed beside clubhouse")
            }
            return found
        }
        let bin = FileSystem.executableDirectory()
        let installed = FileSystem.normalize(bin + "/../share/clubhouse/" + folderName)
        if let found = package(at: installed) { return found }
        // A clubhouse run from a build folder (.build/<triple>/debug): the checkout above it.
        var folder = bin
        while folder != "/" && folder != "." {
            folder = FileSystem.directoryName(folder)
            if FileSystem.isDirectory(folder + "/PluginSDK/Sources/PluginKit"), let found = package(at: folder) { return found }
        }
        throw CLIError(status: .error, message: "no Clubhouse Swift SDK is installed beside \(FileSystem.executablePath()) (looked for \(installed)); install clubhouse with scripts/install.sh PREFIX, which puts it there, or give --sdk PATH")
    }

    /// The package at `root` if it is an installed SDK or a checkout.
    static func package(at root: String) -> (path: String, identity: String)? {
        guard FileSystem.exists(root + "/Package.swift") else { return nil }
        let isInstalled = FileSystem.isDirectory(root + "/Sources/PluginKit")
        let isCheckout = FileSystem.isDirectory(root + "/PluginSDK/Sources/PluginKit")
        guard isInstalled || isCheckout else { return nil }
        return (root, FileSystem.baseName(root).lowercased())
    }
}
