// The SDK outside the repo, as an outside author meets it: scripts/install.sh puts the host, the
// bundled plugins, the headers, clubhouse.pc, the schemas, the Swift SDK, a man page, completions
// and the docs under a prefix; `clubhouse plugin new` writes a C project that builds there with
// `cc $(pkg-config --cflags clubhouse)`, validates and runs, and a Swift project that builds
// against the prefix alone (no checkout within reach), validates, packs and installs. The products
// of this test run's build are installed (debug is fine).

import ClubhouseJSON
import Foundation
import XCTest

final class SDKInstallPackageEndToEndTests: XCTestCase {
    struct Output { var code: Int32; var out: String; var err: String }

    /// Runs `/bin/sh -c command` in `directory` with `environment` added; bounded by `timeout`.
    @discardableResult
    func shell(_ command: String, in directory: String, environment: [String: String] = [:], timeout: TimeInterval = 300,
               file: StaticString = #filePath, line: UInt = #line) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var env = ProcessInfo.processInfo.environment
        for key in ["CLUBHOUSE_CONFIG", "CLUBHOUSE_SITE"] { env.removeValue(forKey: key) }
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        group.enter()
        DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            XCTFail("'\(command)' did not finish within \(timeout) s", file: file, line: line)
        }
        process.waitUntilExit()
        return Output(code: process.terminationStatus, out: String(decoding: outData, as: UTF8.self), err: String(decoding: errData, as: UTF8.self))
    }

    /// The fenced blocks of `language` in a Markdown text.
    static func codeBlocks(_ text: String, language: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```\(language)" { current = []; continue }
            if current != nil, line == "```" { blocks.append(current!.joined(separator: "\n") + "\n"); current = nil; continue }
            current?.append(line)
        }
        return blocks
    }

    func requireTools(_ names: [String]) throws {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in names where !path.split(separator: ":").contains(where: { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }) {
            throw XCTSkip("\(name) is not on the PATH; this test needs it")
        }
    }

    func testInstallIntoAPrefixThenBuildValidateAndRunANewCPluginFromIt() throws {
        try requireTools(["cc", "pkg-config", "make", "bash"])
        let c = try Clubhouse()
        let prefix = c.path("prefix")
        let install = try shell("'\(Clubhouse.repositoryRoot.path)/scripts/install.sh' '\(prefix)' --products '\(Clubhouse.productsDirectory.path)'",
                                in: c.scratch.path)
        XCTAssertEqual(install.code, 0, install.err)
        XCTAssertTrue(install.out.contains("Installed clubhouse 1.0.0 into \(prefix)"), install.out)
        try checkRuntimeLine(install.out)
        let expected = ["bin/clubhouse", "include/clubhouse/clubhouse.h", "include/clubhouse/clubhouse/entry.h",
                        "include/clubhouse/clubhouse/services/storage.h", "include/clubhouse/clubhouse_helpers.h",
                        "lib/pkgconfig/clubhouse.pc", "lib/clubhouse/plugins/libPuttingPlugin.so", "lib/clubhouse/plugins/libNotesC.so",
                        "share/clubhouse/plugins.schema.json", "share/man/man1/clubhouse.1",
                        "share/bash-completion/completions/clubhouse", "share/zsh/site-functions/_clubhouse",
                        "share/fish/vendor_completions.d/clubhouse.fish"]
        for file in expected {
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(prefix)/\(file)"), "\(file) was not installed")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(prefix)/lib/clubhouse/plugins/libFaultyPlugin.so"), "test plugins are not bundled")
        let clubhouse = "'\(prefix)/bin/clubhouse'"
        let env = ["PKG_CONFIG_PATH": "\(prefix)/lib/pkgconfig", "CLUBHOUSE_DATA_DIR": c.dataDirectory.path,
                   "PATH": "\(prefix)/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]

        // The installed host finds its bundled plugins under lib/clubhouse/plugins and trusts them.
        let info = try shell("\(clubhouse) plugins info putting --json", in: c.scratch.path, environment: env)
        XCTAssertEqual(info.code, 0, info.err)
        let putting = try JSONParser.parse(info.out)
        XCTAssertEqual(putting["path"]?.stringValue, "\(prefix)/lib/clubhouse/plugins/libPuttingPlugin.so")
        XCTAssertEqual(putting["reach"]?.stringValue?.contains("inside the host"), true, "\(putting)")
        XCTAssertEqual(try shell("\(clubhouse) --strict plugins list", in: c.scratch.path, environment: env).code, 0)

        // A new C plugin, built from the prefix exactly as its Makefile and as the issue's one-liner say.
        let made = try shell("clubhouse plugin new hello-world --lang c", in: c.scratch.path, environment: env)
        XCTAssertEqual(made.code, 0, made.err)
        let project = c.path("hello-world")
        let built = try shell("make CFLAGS='-O2 -Wall -Wextra -Werror'", in: project, environment: env)
        XCTAssertEqual(built.code, 0, built.out + built.err)
        XCTAssertTrue(built.out.contains("-I\(prefix)/include/clubhouse"), built.out)
        let byHand = try shell("cc -shared -fPIC -std=c99 -Wall -Wextra -Werror $(pkg-config --cflags clubhouse) hello-world.c -o libbyhand.so",
                               in: project, environment: env)
        XCTAssertEqual(byHand.code, 0, byHand.err)
        let validated = try shell("clubhouse plugin validate ./libhello-world.so", in: project, environment: env)
        XCTAssertEqual(validated.code, 0, validated.out + validated.err)
        XCTAssertTrue(validated.out.contains("the plugin is ready for a site"), validated.out)
        XCTAssertTrue(validated.out.contains("PASS   examples         every example a command declares runs and succeeds: 2 example(s)"), validated.out)
        let greeted = try shell("clubhouse --config plugins.json hello-world greet 'Zoë \"Z\"' --times 2 --loud", in: project, environment: env)
        XCTAssertEqual(greeted.code, 0, greeted.err)
        XCTAssertEqual(greeted.out, "HELLO, Zoë \"Z\"!\nHELLO, Zoë \"Z\"!\n")
        let json = try shell("clubhouse --config plugins.json hello-world greet Ada --json", in: project, environment: env)
        let data = try JSONParser.parse(json.out)
        XCTAssertEqual(data["greeting"]?.stringValue, "Hello, Ada!")
        XCTAssertEqual(data["times"]?.intValue, 1)
        let refused = try shell("clubhouse --config plugins.json hello-world greet Ada --times 11", in: project, environment: env)
        XCTAssertEqual(refused.code, 2)
        XCTAssertTrue(refused.err.contains("--times must be an integer from 1 to 10"), refused.err)
        // The helpers on their own, against the installed header.
        let helpers = try shell("cc -std=c99 -Wall -Wextra -Werror $(pkg-config --cflags clubhouse) '\(Clubhouse.repositoryRoot.path)/Tests/Fixtures/plugins/helpers_check.c' -o helpers_check && ./helpers_check",
                                in: c.scratch.path, environment: env)
        XCTAssertEqual(helpers.code, 0, helpers.err)
        XCTAssertEqual(helpers.out, "helpers ok\n")

        // The SDK README's C example, as written, builds from the prefix, validates and runs.
        let readme = try String(contentsOf: Clubhouse.repositoryRoot.appendingPathComponent("PluginSDK/README.md"), encoding: .utf8)
        let cBlocks = Self.codeBlocks(readme, language: "c")
        XCTAssertEqual(cBlocks.count, 1)
        try (cBlocks.first ?? "").write(toFile: c.path("hello.c"), atomically: true, encoding: .utf8)
        let readmeBuilt = try shell("cc -shared -fPIC -std=c99 -Wall -Wextra -Werror $(pkg-config --cflags clubhouse) hello.c -o libhello.so",
                                    in: c.scratch.path, environment: env)
        XCTAssertEqual(readmeBuilt.code, 0, readmeBuilt.err)
        let readmeValidated = try shell("clubhouse plugin validate ./libhello.so", in: c.scratch.path, environment: env)
        XCTAssertEqual(readmeValidated.code, 0, readmeValidated.out)
        try c.write("hello.json", #"{"sites": {"s": {"plugins": {"hello": {"path": "libhello.so"}}}}}"#)
        let readmeRan = try shell("clubhouse --config hello.json hello greet Ann --loud", in: c.scratch.path, environment: env)
        XCTAssertEqual(readmeRan.out, "HELLO, Ann!\n", readmeRan.err)

        // plugin new refuses what it cannot do, writing nothing.
        for (arguments, code, fragment) in [("hello-world", 2, "hello-world already exists"),
                                            ("Bad_Name", 2, "'Bad_Name' cannot name a plugin"),
                                            ("sw --lang swift --sdk /tmp", 2, "/tmp is neither an installed Clubhouse Swift SDK")] {
            let r = try shell("clubhouse plugin new \(arguments)", in: c.scratch.path, environment: env)
            XCTAssertEqual(r.code, Int32(code), "\(arguments): \(r.err)")
            XCTAssertTrue(r.err.contains(fragment), "\(arguments): \(r.err)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.path("sw")))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: c.scratch.path).filter { $0.hasPrefix(".") }, [])

        // Completions and the man page come from the catalogue: every built-in command is there.
        let bashCompletion = "\(prefix)/share/bash-completion/completions/clubhouse"
        let completed = try shell("""
            bash -c 'source "$0"; COMP_WORDS=(clubhouse plugin r); COMP_CWORD=2; _clubhouse; echo "${COMPREPLY[*]}"; \
            COMP_WORDS=(clubhouse --site x lock -); COMP_CWORD=4; _clubhouse; echo "${COMPREPLY[*]}"' '\(bashCompletion)'
            """, in: c.scratch.path)
        XCTAssertEqual(completed.code, 0, completed.err)
        XCTAssertEqual(completed.out.split(separator: "\n").first, "remove rollback")
        XCTAssertEqual(completed.out.split(separator: "\n").last?.hasPrefix("--check --release-pin --data --site"), true, completed.out)
        let man = try String(contentsOfFile: "\(prefix)/share/man/man1/clubhouse.1", encoding: .utf8)
        let zsh = try String(contentsOfFile: "\(prefix)/share/zsh/site-functions/_clubhouse", encoding: .utf8)
        let fish = try String(contentsOfFile: "\(prefix)/share/fish/vendor_completions.d/clubhouse.fish", encoding: .utf8)
        XCTAssertTrue(man.hasPrefix(".TH CLUBHOUSE 1"))
        XCTAssertTrue(zsh.hasPrefix("#compdef clubhouse"))
        for name in ["plugins list", "plugin validate", "plugin rollback", "plugin new", "lock", "config schema", "device simulate"] {
            XCTAssertTrue(man.contains(".B " + name.replacingOccurrences(of: "-", with: "\\-")), "man page lacks \(name)")
            let last = name.split(separator: " ").last.map(String.init) ?? name
            XCTAssertTrue(zsh.contains("'\(last):"), "zsh completion lacks \(name)")
            XCTAssertTrue(fish.contains("-a \(last) "), "fish completion lacks \(name)")
        }
        XCTAssertEqual(try shell("clubhouse __completions tcsh", in: c.scratch.path, environment: env).code, 2)
    }

    /// The install's line about the host's runtime names the Swift runtime's folder (holding
    /// libswiftCore.so) and the SQLite library, both real files.
    func checkRuntimeLine(_ output: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let runtime = try XCTUnwrap(output.split(separator: "\n").first { $0.contains("it runs with the Swift runtime from ") },
                                    "no runtime line in:\n\(output)", file: file, line: line)
        let folder = runtime.components(separatedBy: "the Swift runtime from ").last?.components(separatedBy: " (keep").first ?? ""
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/libswiftCore.so"), "\(runtime)", file: file, line: line)
        let sqlite = runtime.components(separatedBy: " and SQLite ").last ?? ""
        XCTAssertTrue(sqlite.contains("libsqlite3.so") && FileManager.default.fileExists(atPath: sqlite), "\(runtime)", file: file, line: line)
    }

    /// Where the dynamic linker finds nothing, the install stops before anything uses the host and
    /// names what is missing and how to get it (`LDD` stands in for ldd).
    func testTheInstallNamesWhatTheHostNeedsAtRunTimeAndStopsWhenItIsMissing() throws {
        let c = try Clubhouse()
        let fakeLDD = try c.write("fake-ldd", """
            #!/bin/sh
            echo "	libsqlite3.so.0 => not found"
            echo "	libswiftCore.so => not found"
            echo "	libgcc_s.so.1 => not found"
            echo "	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f0000000000)"
            """)
        chmod(fakeLDD, 0o755)
        let prefix = c.path("prefix")
        let missing = try shell("'\(Clubhouse.repositoryRoot.path)/scripts/install.sh' '\(prefix)' --products '\(Clubhouse.productsDirectory.path)'",
                                in: c.scratch.path, environment: ["LDD": fakeLDD])
        XCTAssertEqual(missing.code, 1, missing.out + missing.err)
        XCTAssertTrue(missing.err.contains("install.sh: \(prefix)/bin/clubhouse cannot start: libsqlite3.so.0 (SQLite) is missing; install it (Debian: apt-get install libsqlite3-0)"), missing.err)
        XCTAssertTrue(missing.err.contains("cannot start: libswiftCore.so (the Swift runtime) is missing; install the Swift toolchain that built clubhouse"), missing.err)
        XCTAssertTrue(missing.err.contains("cannot start: libgcc_s.so.1 is missing; install the package that provides it"), missing.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(prefix)/share/man/man1/clubhouse.1"), "nothing after the check ran")
        // Without ldd the install goes on and says what it could not check.
        let unchecked = try shell("'\(Clubhouse.repositoryRoot.path)/scripts/install.sh' '\(prefix)' --products '\(Clubhouse.productsDirectory.path)'",
                                  in: c.scratch.path, environment: ["LDD": "/nonexistent/ldd"])
        XCTAssertEqual(unchecked.code, 0, unchecked.err)
        XCTAssertTrue(unchecked.out.contains("it runs with (not checked: /nonexistent/ldd is not on the PATH) the Swift runtime of the toolchain that built clubhouse and the system libsqlite3"), unchecked.out)

        // A clubhouse with no Swift SDK beside it and no checkout above it says where it looked.
        try FileManager.default.createDirectory(atPath: c.path("lone/bin"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Clubhouse.executable.path, toPath: c.path("lone/bin/clubhouse"))
        let lone = try shell("'\(c.path("lone/bin/clubhouse"))' plugin new x --lang swift", in: c.scratch.path)
        XCTAssertEqual(lone.code, 1, lone.err)
        XCTAssertTrue(lone.err.contains("no Clubhouse Swift SDK is installed beside \(c.path("lone/bin/clubhouse")) (looked for \(c.path("lone/share/clubhouse/PluginSDK"))); install clubhouse with scripts/install.sh PREFIX, which puts it there, or give --sdk PATH"), lone.err)
    }

    /// Issue 32, "Swift plugins need the repository": from a prefix alone — no checkout within reach
    /// of the project, no --sdk — `plugin new --lang swift` writes a package that states the exact
    /// toolchain, builds against PREFIX/share/clubhouse/PluginSDK, validates, packs and installs;
    /// another toolchain is stopped by the manifest with a message saying which one is needed.
    /// One Swift build (the template plus the SDK README's example as a second library).
    func testASwiftPluginBuildsFromThePrefixAloneValidatesPacksAndInstalls() throws {
        try requireTools(["swift"])
        let c = try Clubhouse()
        let prefix = c.path("prefix")
        let install = try shell("'\(Clubhouse.repositoryRoot.path)/scripts/install.sh' '\(prefix)' --products '\(Clubhouse.productsDirectory.path)'",
                                in: c.scratch.path)
        XCTAssertEqual(install.code, 0, install.err)
        // From here on only the prefix: the project sits in a scratch folder outside the checkout
        // (its ../ has no clubhouse), and PATH has the installed clubhouse and the toolchain only.
        let root = Clubhouse.repositoryRoot.path
        XCTAssertFalse(c.scratch.path.hasPrefix(root + "/"))
        let toolchain = try shell("dirname \"$(command -v swift)\"", in: c.scratch.path).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let env = ["PATH": "\(prefix)/bin:\(toolchain):/usr/bin:/bin", "CLUBHOUSE_DATA_DIR": c.dataDirectory.path]
        let version = try shell("clubhouse --version", in: c.scratch.path, environment: env).out
        let swift = try XCTUnwrap(version.components(separatedBy: ", Swift ").last?.components(separatedBy: ",").first, version)

        let made = try shell("clubhouse plugin new swing-speed --lang swift", in: c.scratch.path, environment: env)
        XCTAssertEqual(made.code, 0, made.err)
        let project = c.path("swing-speed")
        let sdk = "\(prefix)/share/clubhouse/PluginSDK"
        var manifest = try String(contentsOfFile: project + "/Package.swift", encoding: .utf8)
        XCTAssertTrue(manifest.contains(".package(path: \"\(sdk)\")"), manifest)
        XCTAssertTrue(manifest.contains("must be built by Swift \(swift) for"), "the toolchain is stated where an author looks:\n\(manifest)")
        XCTAssertTrue(manifest.contains("#if !(compiler(>=\(swift))"), manifest)
        let readme = try String(contentsOfFile: project + "/README.md", encoding: .utf8)
        XCTAssertTrue(readme.contains("Build it with Swift \(swift)"), readme)
        for folder in [project, sdk] {
            let mentions = try shell("grep -rl -F '\(root)' . || true", in: folder).out
            XCTAssertEqual(mentions, "", "\(folder) names the checkout: \(mentions)")
        }
        XCTAssertTrue(try String(contentsOfFile: sdk + "/Package.swift", encoding: .utf8).contains("must be built by Swift \(swift)"))

        // The SDK README's Swift plugin and the product and target it says to add, as written, are a
        // second library of the same package.
        let sdkReadme = try String(contentsOfFile: "\(prefix)/share/doc/clubhouse/PLUGIN-SDK.md", encoding: .utf8)
        let swiftBlocks = Self.codeBlocks(sdkReadme, language: "swift")
        let example = try XCTUnwrap(swiftBlocks.first { $0.contains("import PluginKit") })
        let declared = try XCTUnwrap(swiftBlocks.first { $0.hasPrefix(".library(") }).split(separator: "\n", maxSplits: 1).map(String.init)
        guard declared.count == 2, declared[1].contains("path: \"Sources/HelloPlugin\"") else { return XCTFail("PLUGIN-SDK.md's target: \(declared)") }
        try FileManager.default.createDirectory(atPath: project + "/Sources/HelloPlugin", withIntermediateDirectories: true)
        try example.write(toFile: project + "/Sources/HelloPlugin/Hello.swift", atomically: true, encoding: .utf8)
        // And the three builds of the administrator's path below (LedgerV1, LedgerV2Fails, LedgerV2).
        var libraries: [String] = []
        for (target, version, migrations) in Self.ledgerBuilds {
            try FileManager.default.createDirectory(atPath: project + "/Sources/\(target)", withIntermediateDirectories: true)
            try Self.ledgerSource(version: version, migrations: migrations).write(toFile: project + "/Sources/\(target)/Ledger.swift", atomically: true, encoding: .utf8)
            libraries.append(target)
        }
        let products = libraries.map { ".library(name: \"\($0)\", type: .dynamic, targets: [\"\($0)\"])" }.joined(separator: ", ")
        let targets = libraries.map { "        .target(name: \"\($0)\", dependencies: [.product(name: \"PluginKit\", package: \"pluginsdk\")], path: \"Sources/\($0)\"),\n" }.joined()
        manifest = manifest.replacingOccurrences(of: "targets: [\"SwingSpeedPlugin\"])],", with: "targets: [\"SwingSpeedPlugin\"]), \(declared[0]) \(products)],")
        manifest = manifest.replacingOccurrences(of: "    ]\n)", with: "        " + declared[1] + targets + "    ]\n)")
        try manifest.write(toFile: project + "/Package.swift", atomically: true, encoding: .utf8)
        let built = try shell("swift build 2>&1", in: project, environment: env, timeout: 900)
        XCTAssertEqual(built.code, 0, built.out)
        let library = project + "/.build/debug/libSwingSpeedPlugin.so"

        let validated = try shell("clubhouse plugin validate .build/debug/libSwingSpeedPlugin.so", in: project, environment: env)
        XCTAssertEqual(validated.code, 0, validated.out + validated.err)
        XCTAssertTrue(validated.out.contains("2 example(s): greet Ada --times 2; greet --loud"), validated.out)
        XCTAssertTrue(validated.out.contains("the plugin is ready for a site"), validated.out)
        let greeted = try shell("clubhouse --config plugins.json swing-speed greet Ada --times 2", in: project, environment: env)
        XCTAssertEqual(greeted.out, "Hello, Ada!\nHello, Ada!\n", greeted.err)
        let readmeValidated = try shell("clubhouse plugin validate .build/debug/libHelloPlugin.so", in: project, environment: env)
        XCTAssertEqual(readmeValidated.code, 0, readmeValidated.out + readmeValidated.err)

        // Issue 32's "done when", the Swift half, with the installed clubhouse only: validated at a
        // site that sandboxes it (where the kernel has Landlock), signed with a key keygen made,
        // packed, installed, loaded at a site that requires its publisher's signature, and locked.
        let sandboxSite = try c.write("sandbox.json", #"{"sites": {"club": {"plugins": {"swing": {"path": "\#(library)", "isolation": "sandbox"}}}}}"#)
        let atSandbox = try shell("clubhouse --config '\(sandboxSite)' --site club plugin validate .build/debug/libSwingSpeedPlugin.so --json", in: project, environment: env)
        if !(atSandbox.out + atSandbox.err).contains("Landlock") {
            XCTAssertEqual(atSandbox.code, 0, atSandbox.out + atSandbox.err)
            XCTAssertTrue(atSandbox.out.contains("sandbox (set in \(sandboxSite):1:"), atSandbox.out)
        }
        let keyed = try shell("clubhouse plugin keygen --out acme.key --json", in: project, environment: env)
        XCTAssertEqual(keyed.code, 0, keyed.err)
        let publicKey = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(keyed.out.utf8)) as? [String: Any])?["public_key"] as? String, keyed.out)
        let packed = try shell("clubhouse plugin pack .build/debug/libSwingSpeedPlugin.so --out swing-speed-0.1.0.chpkg --sign acme.key --license MIT",
                               in: project, environment: env)
        XCTAssertEqual(packed.code, 0, packed.err)
        let verified = try shell("clubhouse plugin verify swing-speed-0.1.0.chpkg", in: project, environment: env)
        XCTAssertTrue(verified.out.contains("signature valid: signed by \(publicKey)"), verified.out + verified.err)
        let installed = try shell("clubhouse plugin install swing-speed-0.1.0.chpkg", in: project, environment: env)
        XCTAssertEqual(installed.code, 0, installed.err)
        XCTAssertTrue(installed.out.contains("Installed org.example.swing-speed 0.1.0"), installed.out)
        try c.write("site.json", #"{"publishers": {"acme": "\#(publicKey)"}, "sites": {"club": {"require_signatures": true, "plugins": {"swing": {"id": "org.example.swing-speed"}}}}}"#)
        let fromPackage = try shell("clubhouse --config site.json swing greet Bo --loud", in: c.scratch.path, environment: env)
        XCTAssertEqual(fromPackage.out, "HELLO, BO!\n", fromPackage.err)
        let locked = try shell("clubhouse --config site.json lock && clubhouse --config site.json lock --check", in: c.scratch.path, environment: env)
        XCTAssertEqual(locked.code, 0, locked.out + locked.err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: library))

        try administratorsPath(c, project: project, environment: env, acme: publicKey)

        // Another toolchain (the host built by 5.9.2, as far as plugin new knows) is stopped by the
        // manifest before anything compiles, naming the compiler needed.
        let other = try shell("clubhouse plugin new old-swift --lang swift", in: c.scratch.path,
                              environment: env.merging(["CLUBHOUSE_TEST_SWIFT_COMPILER": "5.9.2"]) { $1 })
        XCTAssertEqual(other.code, 0, other.err)
        let refused = try shell("swift package dump-package 2>&1", in: c.path("old-swift"), environment: env, timeout: 120)
        XCTAssertNotEqual(refused.code, 0)
        XCTAssertTrue(refused.out.contains("error: The old-swift plugin must be built by Swift 5.9.2, the toolchain of the clubhouse it runs in"), refused.out)
        // And a library another toolchain built is refused by validate, both toolchains named.
        let mismatch = try FixturePlugins.build("SWIFT_MISMATCH")
        let checked = try shell("clubhouse plugin validate '\(mismatch)' --only entry,descriptor", in: c.scratch.path, environment: env)
        XCTAssertEqual(checked.code, 1)
        XCTAssertTrue(checked.out.contains("a Swift plugin built by Swift 5.9.2 for x86_64-unknown-linux-gnu, but this host was built by Swift \(swift)"), checked.out)
    }

    /// The Swift builds of one plugin with a database, as its publisher releases them: 1.0.0, a
    /// 2.0.0 whose third migration fails half-way, and the 2.0.0 that fixes it.
    static let ledgerBuilds: [(target: String, version: String, migrations: [String])] = {
        let entries = #"Migration(1, "entries", "CREATE TABLE entries (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")"#
        let stars = #"Migration(2, "stars", "ALTER TABLE entries ADD COLUMN stars INTEGER NOT NULL DEFAULT 0")"#
        let tags = #"Migration(3, "tags", "CREATE TABLE tags (entry INTEGER, tag TEXT); INSERT INTO tags SELECT id, label FROM no_such_table")"#
        return [("LedgerV1", "1.0.0", [entries]), ("LedgerV2Fails", "2.0.0", [entries, stars, tags]), ("LedgerV2", "2.0.0", [entries, stars])]
    }()

    /// A PluginKit plugin that writes entries into its database: `add BODY`, `list` (the bodies and
    /// the version that read them).
    static func ledgerSource(version: String, migrations: [String]) -> String {
        """
        import CClubhouse
        import ClubhouseJSON
        import PluginKit

        final class Ledger: Plugin {
            static let info = PluginInfo(id: "org.example.ledger", version: "\(version)", name: "ledger",
                                         summary: "Entries in a database", services: [.storage])
            static let migrations = [\(migrations.joined(separator: ", "))]
            struct Entry: Decodable { var body: String }

            static let commands: [Command<Ledger>] = [
                Command("add", summary: "Add an entry", arguments: [.string("body", help: "what to write", required: true, positional: true)],
                        reply: "{id}", examples: ["add first"]) { plugin, call in
                    try plugin.storage.run("INSERT INTO entries (body) VALUES (?)", [.text(try call.arguments.string("body"))])
                    return Reply(data: ["id": .int(Int(plugin.storage.lastInsertRowID))], text: "added\\n")
                },
                Command("list", summary: "Every entry", reply: "{version, bodies}", examples: ["list"]) { plugin, _ in
                    let bodies = try plugin.storage.query(Entry.self, "SELECT body FROM entries ORDER BY id").map(\\.body)
                    return Reply(data: ["version": .string(info.version), "bodies": .array(bodies.map { .string($0) })],
                                 text: bodies.joined(separator: " ") + "\\n")
                },
            ]

            let storage: Storage
            init(context: PluginContext) throws {
                storage = try context.storage()
                try storage.migrate(Self.migrations)
            }
        }

        @_cdecl("clubhouse_plugin_entry")
        public func clubhousePluginEntry(_ info: UnsafePointer<clubhouse_host_info>?) -> UnsafePointer<clubhouse_plugin_descriptor>? {
            export(Ledger.self, info)
        }

        """
    }

    /// Issue 32's "done when" for a Swift plugin, with the installed clubhouse only: signed packages
    /// installed at a site that requires signatures; 1.0.0 with rows; a 2.0.0 whose migration fails
    /// (the old version serves until the site is locked to it, the failure says what failed and
    /// that the database was restored, a rollback serves every row again); the fixed 2.0.0 in its
    /// place; rolled forward, back, forward and back again. No row is ever lost: every row written
    /// is in the live database or a kept copy, and every file passes `PRAGMA integrity_check`.
    func administratorsPath(_ c: Clubhouse, project: String, environment env: [String: String], acme: String) throws {
        let id = "org.example.ledger"
        let config = try c.write("ledger.json", #"{"publishers": {"acme": "\#(acme)"}, "sites": {"club": {"require_signatures": true, "plugins": {"ledger": {"id": "\#(id)", "grants": ["storage"]}}}}}"#)
        @discardableResult
        func run(_ command: String, code: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> Output {
            let r = try shell("clubhouse --config '\(config)' --site club " + command, in: project, environment: env, file: file, line: line)
            XCTAssertEqual(r.code, code, "clubhouse \(command):\n\(r.out)\(r.err)", file: file, line: line)
            return r
        }
        func package(_ target: String, _ version: String) throws -> String {
            let out = "\(target)-\(version).chpkg"
            let packed = try shell("clubhouse plugin pack .build/debug/lib\(target).so --out \(out) --sign acme.key --license MIT", in: project, environment: env)
            XCTAssertEqual(packed.code, 0, packed.out + packed.err)
            return out
        }
        /// What `ledger list` reads, as "VERSION: BODIES".
        func list(file: StaticString = #filePath, line: UInt = #line) throws -> String {
            let v = try JSONParser.parse(try run("ledger list --json", file: file, line: line).out)
            return "\(v["version"]?.stringValue ?? "?"): " + (v["bodies"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: " ")
        }
        var written: [String] = []
        func add(_ body: String, file: StaticString = #filePath, line: UInt = #line) throws {
            try run("ledger add \(body)", file: file, line: line)
            written.append(body)
        }

        try run("plugin install \(try package("LedgerV1", "1.0.0"))")
        try run("lock")
        for body in ["a", "b", "c"] { try add(body) }
        XCTAssertEqual(try list(), "1.0.0: a b c")

        // 2.0.0 installed beside it: the locked site goes on with 1.0.0 until it is locked again.
        try run("plugin install \(try package("LedgerV2Fails", "2.0.0"))")
        XCTAssertEqual(try list(), "1.0.0: a b c")
        try run("lock")
        let failed = try run("ledger list", code: 1)
        XCTAssertTrue(failed.err.contains("migration 3 ('tags') of plugin 'ledger' failed: no such table: no_such_table"), failed.err)
        XCTAssertEqual(failed.err.split(separator: "\n").count, 1, failed.err)
        // The message names the copy it restored, whole, and the command that keeps the site on
        // 1.0.0, which runs as written.
        let restored = failed.err.components(separatedBy: "the database was restored from the backup made before the upgrade from 1.0.0 to 2.0.0 (").last?
            .components(separatedBy: "), as 1.0.0 left it").first ?? ""
        XCTAssertTrue(restored.hasSuffix(".upgrade-2.0.0.sqlite") && FileManager.default.fileExists(atPath: restored), failed.err)
        XCTAssertEqual(KeptDatabases.query(restored, "SELECT body FROM entries ORDER BY id"), ["a", "b", "c"])
        let keep = try XCTUnwrap(failed.err.components(separatedBy: "keep the site on 1.0.0 with ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertEqual(keep, "clubhouse --config \(config) plugin rollback \(id) --site club")
        let rolledBack = try shell(keep, in: project, environment: env)
        XCTAssertEqual(rolledBack.code, 0, rolledBack.err)
        XCTAssertEqual(try list(), "1.0.0: a b c")
        try add("d")

        // The publisher's fixed 2.0.0 replaces the broken build; releasing the rollback pin moves on to it.
        try run("plugin remove \(id)@2.0.0")
        try run("plugin install \(try package("LedgerV2", "2.0.0"))")
        let held = try run("lock --check").out
        XCTAssertTrue(held.contains("club/ledger is held at 1.0.0 by the rollback from 2.0.0"), held)
        // lock --check's advice, as written, rolls the site forward.
        let advice = try XCTUnwrap(held.components(separatedBy: "not stale; ").last?.components(separatedBy: " moves it to 2.0.0").first)
        XCTAssertEqual(advice, "clubhouse --config \(config) lock --site club --release-pin ledger")
        let forward = try shell(advice, in: project, environment: env).out
        XCTAssertTrue(forward.contains("forward from 1.0.0 to 2.0.0"), forward)
        XCTAssertEqual(try list(), "2.0.0: a b c d")
        try add("e")

        // Back, forward (with 2.0.0's data), back again.
        try run("plugin rollback ledger")
        XCTAssertEqual(try list(), "1.0.0: a b c d")
        try run("lock --release-pin ledger")
        XCTAssertEqual(try list(), "2.0.0: a b c d e")
        try add("f")
        try run("plugin rollback ledger")
        XCTAssertEqual(try list(), "1.0.0: a b c d")
        let backups = try run("plugin backups ledger").out
        XCTAssertTrue(backups.contains("2.0.0"), backups)

        // Every file sound; every row written is in the live database or a kept copy, and 2.0.0's
        // newest data (a to f) is one of them.
        let site = c.dataDirectory.appendingPathComponent("club").path
        let files = [site + "/\(id).sqlite"] + KeptDatabases.list(site + "/\(id).backups").map(\.file)
        var kept = Set<String>()
        var states: [String] = []
        for database in files {
            XCTAssertEqual(KeptDatabases.integrity(database), "ok", database)
            let bodies = KeptDatabases.query(database, "SELECT body FROM entries ORDER BY id")
            kept.formUnion(bodies)
            states.append(bodies.joined(separator: " "))
        }
        XCTAssertEqual(written, ["a", "b", "c", "d", "e", "f"])
        XCTAssertEqual(kept, Set(written), "rows lost: \(Set(written).subtracting(kept))")
        XCTAssertTrue(states.contains("a b c d e f"), "\(states)")
    }
}
