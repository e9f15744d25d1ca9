// The SDK outside the repo, as an outside author meets it: scripts/install.sh puts the host, the
// bundled plugins, the headers, clubhouse.pc, the schema, a man page and completions under a
// prefix; `clubhouse plugin new` writes a C project that builds there with
// `cc $(pkg-config --cflags clubhouse)`, validates and runs; the Swift project builds against the
// checkout. The products of this test run's build are installed (debug is fine).

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
        XCTAssertEqual(readmeRan.out, "HELLO, Ann!", readmeRan.err)

        // plugin new refuses what it cannot do, writing nothing.
        for (arguments, code, fragment) in [("hello-world", 2, "hello-world already exists"),
                                            ("Bad_Name", 2, "'Bad_Name' cannot name a plugin"),
                                            ("sw --lang swift", 2, "--lang swift needs --sdk PATH"),
                                            ("sw --lang swift --sdk /tmp", 2, "/tmp is not a Clubhouse checkout")] {
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

    func testTheNewSwiftPluginBuildsAgainstTheCheckoutValidatesAndRuns() throws {
        try requireTools(["swift"])
        let c = try Clubhouse()
        try c.succeed(["plugin", "new", "swing-speed", "--lang", "swift", "--sdk", Clubhouse.repositoryRoot.path, "--dir", c.scratch.path])
        let project = c.path("swing-speed")
        // The SDK README's Swift plugin, as written, is a second library of the same package.
        let readme = try String(contentsOf: Clubhouse.repositoryRoot.appendingPathComponent("PluginSDK/README.md"), encoding: .utf8)
        let example = try XCTUnwrap(Self.codeBlocks(readme, language: "swift").first { $0.contains("import PluginKit") })
        try FileManager.default.createDirectory(atPath: project + "/Sources/ReadmeHello", withIntermediateDirectories: true)
        try example.write(toFile: project + "/Sources/ReadmeHello/Hello.swift", atomically: true, encoding: .utf8)
        var manifest = try String(contentsOfFile: project + "/Package.swift", encoding: .utf8)
        let identity = Clubhouse.repositoryRoot.lastPathComponent.lowercased()
        manifest = manifest.replacingOccurrences(of: "targets: [\"SwingSpeedPlugin\"])],",
                                                 with: "targets: [\"SwingSpeedPlugin\"]), .library(name: \"ReadmeHello\", type: .dynamic, targets: [\"ReadmeHello\"])],")
        manifest = manifest.replacingOccurrences(of: "    ]\n)", with: "        .target(name: \"ReadmeHello\", dependencies: [.product(name: \"PluginKit\", package: \"\(identity)\")], path: \"Sources/ReadmeHello\"),\n    ]\n)")
        try manifest.write(toFile: project + "/Package.swift", atomically: true, encoding: .utf8)
        let built = try shell("swift build --scratch-path '\(c.path("swift-build"))' 2>&1", in: project, timeout: 900)
        XCTAssertEqual(built.code, 0, built.out)
        let library = c.path("swift-build/debug/libSwingSpeedPlugin.so")
        let validated = try c.run(["plugin", "validate", library])
        XCTAssertEqual(validated.exitCode, 0, validated.stdout + validated.stderr)
        // The examples a Swift command declares are in its catalogue, and validate runs them.
        XCTAssertTrue(validated.stdout.contains("2 example(s): greet Ada --times 2; greet --loud"), validated.stdout)
        let config = try c.write("swing.json", """
            {"sites": {"dev": {"plugins": {"swing-speed": {"path": "\(library)", "isolation": "process"}}}}}
            """)
        XCTAssertEqual(try c.succeed(["--config", config, "swing-speed", "greet", "Ada", "--times", "2"]).stdout, "Hello, Ada!\nHello, Ada!\n")
        try c.fail(["--config", config, "swing-speed", "greet", "--times", "11"], exitCode: 2, contains: ["--times must be an integer from 1 to 10"])
        let readmeLibrary = c.path("swift-build/debug/libReadmeHello.so")
        let readmeValidated = try c.run(["plugin", "validate", readmeLibrary])
        XCTAssertEqual(readmeValidated.exitCode, 0, readmeValidated.stdout + readmeValidated.stderr)
    }
}
