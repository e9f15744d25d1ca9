// Issue 32, "the installed docs point at files that are not installed": after scripts/install.sh,
// every link and every path an installed document names resolves inside the prefix (the walk
// below), and the facts the docs state are read from the code: the isolation values and grant
// forms from the schema, the exit codes from the status rule, the ABI version from version.h.

import ClubhouseABI
import ClubhouseJSON
import Foundation
import XCTest

final class InstalledDocsEndToEndTests: XCTestCase {
    /// One install for the class (a few seconds).
    nonisolated(unsafe) static var installed: (prefix: String, output: String, scratch: String)?

    static func prefix() throws -> String {
        if let installed { return installed.prefix }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("clubhouse-docs-\(getpid())").path
        let prefix = scratch + "/prefix"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [Clubhouse.repositoryRoot.path + "/scripts/install.sh", prefix, "--products", Clubhouse.productsDirectory.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw XCTSkip("scripts/install.sh failed:\n\(output)") }
        installed = (prefix, output, scratch)
        return prefix
    }

    override class func tearDown() {
        if let installed { try? FileManager.default.removeItem(atPath: installed.scratch) }
        installed = nil
        super.tearDown()
    }

    /// Every file the repository tracks (the oracle for "this name is a file of the project").
    static let repositoryFiles: [String] = {
        let root = Clubhouse.repositoryRoot.path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", root, "ls-files"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        if (try? process.run()) != nil {
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if process.terminationStatus == 0 { return text.split(separator: "\n").map(String.init) }
        }
        // No git: every file under the root but build products.
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let next = enumerator?.nextObject() as? String {
            if next.hasPrefix(".build") || next.hasPrefix(".git") || next.contains("/.build") { continue }
            files.append(next)
        }
        return files
    }()

    /// Whether `name` names a file or folder of the repository (the whole path, or its tail: a
    /// path written relative to some folder of the repository, eg `Runner/Wire.swift`).
    static func namesRepositoryFile(_ name: String) -> Bool {
        let trimmed = name.hasSuffix("/") ? String(name.dropLast()) : name
        guard !trimmed.isEmpty, !trimmed.hasPrefix("/"), !trimmed.hasPrefix("../"), !trimmed.hasPrefix("./"), trimmed.contains("/") else { return false }
        return repositoryFiles.contains { $0 == trimmed || $0.hasSuffix("/" + trimmed) || $0.hasPrefix(trimmed + "/") || $0.contains("/" + trimmed + "/") }
    }

    /// The names a Markdown page gives: link targets and one-word code spans with a folder in them,
    /// and inside fenced blocks the words that are paths to a page, schema, header or source file
    /// (what scripts/install-docs.sh rewrites).
    static func names(inMarkdown text: String) -> [(kind: String, name: String)] {
        var found: [(String, String)] = []
        var fenced = false
        let separators = CharacterSet(charactersIn: " \t\"'(),;:<>=")
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { fenced.toggle(); continue }
            if fenced {
                for word in line.components(separatedBy: separators) where word.contains("/")
                    && ["md", "json", "h", "c", "swift"].contains((word as NSString).pathExtension) {
                    found.append(("word", word))
                }
                continue
            }
            let s = String(line)
            var rest = Substring(s)
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                found.append(("link", String(after[..<close])))
                rest = after[after.index(after: close)...]
            }
            let pieces = s.components(separatedBy: "`")
            for i in stride(from: 1, to: pieces.count - 1, by: 2) {
                let word = pieces[i]
                if !word.isEmpty, word.contains("/"), !word.contains(" "),
                   word.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || "_./-".unicodeScalars.contains($0) }) {
                    found.append(("code", word))
                }
            }
        }
        return found
    }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    func testEveryLinkAndPathNamedInTheInstalledDocumentsResolves() throws {
        let prefix = try Self.prefix()
        let docs = prefix + "/share/doc/clubhouse"
        // What the issue found missing is there.
        for file in ["README.md", "PLUGIN-SDK.md", "JSON-RPC.md", "SECURITY.md", "RELIABILITY.md", "services/storage.md",
                     "services/config.md", "examples/NotesC/notes.c", "examples/Greeter/Greeter.swift"] {
            XCTAssertTrue(exists("\(docs)/\(file)"), "\(file) is not installed")
        }
        for file in ["share/clubhouse/plugins.schema.json", "share/clubhouse/drill.schema.json", "include/clubhouse/clubhouse.h",
                     "share/clubhouse/PluginSDK/Package.swift", "share/clubhouse/PluginSDK/Sources/PluginKit/Plugin.swift",
                     "lib/clubhouse/plugins/federation/org.clubhouse.scorecard/postgresql/001_scoring_record.sql",
                     "lib/clubhouse/plugins/federation/org.clubhouse.scorecard/manifest.json"] {
            XCTAssertTrue(exists("\(prefix)/\(file)"), "\(file) is not installed")
        }
        // Every Host/*.md reference (JSON-RPC.md, and HTTP.md once it exists) is installed.
        for page in try FileManager.default.contentsOfDirectory(atPath: Clubhouse.repositoryRoot.path + "/Host") where page.hasSuffix(".md") {
            XCTAssertTrue(exists("\(docs)/\(page)"), "Host/\(page) is not installed")
        }

        // The walk: every installed page (not the cited sources, copied as they are).
        var pages: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: docs)
        while let next = enumerator?.nextObject() as? String {
            if next.hasSuffix(".md") && !next.hasPrefix("source/") && !next.hasPrefix("examples/") { pages.append(next) }
        }
        XCTAssertGreaterThanOrEqual(pages.count, 13, "\(pages)")
        var checked = 0
        var failures: [String] = []
        for page in pages.sorted() {
            let folder = (docs + "/" + page as NSString).deletingLastPathComponent
            let text = try String(contentsOfFile: docs + "/" + page, encoding: .utf8)
            for (kind, name) in Self.names(inMarkdown: text) {
                let path = name.components(separatedBy: "#")[0]
                if path.isEmpty || path.contains("://") || path.hasPrefix("mailto:") { continue }
                if kind == "link" {
                    checked += 1
                    let target = path.hasPrefix("/") ? path : folder + "/" + path
                    if !exists(target) { failures.append("\(page): link (\(name)) does not resolve") }
                } else if path.hasPrefix(prefix + "/") || path.hasPrefix("PREFIX/") {
                    checked += 1
                    let target = path.hasPrefix("PREFIX/") ? prefix + "/" + path.dropFirst(7) : path
                    if !exists(target) { failures.append("\(page): `\(name)` is not in the prefix") }
                } else if Self.namesRepositoryFile(path) {
                    checked += 1
                    // A file of the project, written relative: it must be there, beside the page, at
                    // the prefix's root, or in the C include folder (`clubhouse/services/config.h`).
                    let places = [folder + "/" + path, prefix + "/" + path, prefix + "/include/clubhouse/" + path]
                    if !places.contains(where: exists) {
                        failures.append("\(page): `\(name)` names a file of the repository that is not at that path in the prefix")
                    }
                }
            }
        }
        // The man page names the prefix's files by their absolute paths.
        let man = try String(contentsOfFile: prefix + "/share/man/man1/clubhouse.1", encoding: .utf8).replacingOccurrences(of: "\\-", with: "-")
        for word in man.components(separatedBy: CharacterSet(charactersIn: " \t\n()")) where word.contains(prefix) {
            let path = word.replacingOccurrences(of: "\\fI", with: "").replacingOccurrences(of: "\\fR", with: "")
                .trimmingCharacters(in: CharacterSet(charactersIn: ":;,."))
            checked += 1
            if !exists(path) { failures.append("clubhouse.1: \(path) is not in the prefix") }
        }
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
        XCTAssertGreaterThan(checked, 100, "the walk found too few names to mean anything")

        // The walk itself fails on a name that does not resolve.
        let broken = "see [the guide](missing.md) and `Host/Sources/ClubhouseHost/Runner/Sandbox.swift` and `Runner/Wire.swift`\n"
            + "```bash\nclubhouse serve   # methods: Host/JSON-RPC.md\n```\n"
        XCTAssertEqual(Self.names(inMarkdown: broken).map(\.name),
                       ["missing.md", "Host/Sources/ClubhouseHost/Runner/Sandbox.swift", "Runner/Wire.swift", "Host/JSON-RPC.md"])
        XCTAssertTrue(Self.namesRepositoryFile("Server/StdioRelay.swift"))
        XCTAssertFalse(Self.namesRepositoryFile("tour/tennis/tennis-demo-taps.json"))
    }

    /// The facts the issue found wrong, each read from the code rather than from a copy of it.
    func testTheFactsTheDocsStateAreReadFromTheCode() throws {
        let prefix = try Self.prefix()
        let root = Clubhouse.repositoryRoot
        // PLUGIN-SDK.md: every isolation value and every grant form of the schema.
        let schema = try JSONParser.parse(String(contentsOf: root.appendingPathComponent("PluginSDK/plugins.schema.json"), encoding: .utf8))
        let plugin = schema["$defs"]?["plugin"]?["properties"]
        let isolations = try XCTUnwrap(plugin?["isolation"]?["enum"]?.arrayValue?.compactMap(\.stringValue))
        let pattern = try XCTUnwrap(plugin?["grants"]?["items"]?["pattern"]?.stringValue)  // ^(storage|device:.+|…)$
        let grants = pattern.dropFirst(2).dropLast(2).split(separator: "|").map { $0.components(separatedBy: ":").first.map { $0 == "storage" ? $0 : $0 + ":" } ?? "" }
        XCTAssertEqual(Set(isolations), ["auto", "in-process", "process", "sandbox"])
        XCTAssertEqual(Set(grants), ["storage", "device:", "invoke:", "net:"])
        let sdk = try String(contentsOfFile: prefix + "/share/doc/clubhouse/PLUGIN-SDK.md", encoding: .utf8)
        let lines = sdk.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func bullet(_ key: String) -> String {
            guard let start = lines.firstIndex(where: { $0.hasPrefix("- `\(key)`:") }) else { return "" }
            return lines[start...].prefix { $0 == lines[start] || $0.hasPrefix("  ") }.joined(separator: " ")
        }
        for value in isolations { XCTAssertTrue(bullet("isolation").contains("`\(value)`"), "PLUGIN-SDK.md's isolation lacks \(value): \(bullet("isolation"))") }
        for form in grants { XCTAssertTrue(bullet("grants").contains("`\(form)"), "PLUGIN-SDK.md's grants lack \(form): \(bullet("grants"))") }

        // The man page's EXIT STATUS: every code a status ends a command with, and its statuses.
        let man = try String(contentsOfFile: prefix + "/share/man/man1/clubhouse.1", encoding: .utf8)
        let exitSection = man.components(separatedBy: ".SH EXIT STATUS").last?.components(separatedBy: ".SH ").first ?? ""
        let statuses = Status.allCases.filter { $0 != .row && $0 != .done }
        for code in Set(statuses.map(\.exitCode)) {
            XCTAssertTrue(exitSection.contains(".B \(code)\n"), "EXIT STATUS lacks \(code):\n\(exitSection)")
            let line = exitSection.components(separatedBy: ".B \(code)\n").last?.split(separator: "\n").first.map(String.init) ?? ""
            for status in statuses where status.exitCode == code {
                XCTAssertTrue(line.contains(status.name.replacingOccurrences(of: "-", with: "\\-")), "exit \(code) lacks \(status.name): \(line)")
            }
        }
        XCTAssertTrue(exitSection.contains(".B 130\n"), exitSection)

        // clubhouse.h names the ABI version.h defines; so do the template and the SDK README's example.
        let version = try String(contentsOfFile: prefix + "/include/clubhouse/clubhouse/version.h", encoding: .utf8)
        func macro(_ name: String) -> String? {
            version.split(separator: "\n").first { $0.hasPrefix("#define \(name) ") }?.split(separator: " ").last.map(String.init)
        }
        let abi = "\(try XCTUnwrap(macro("CLUBHOUSE_ABI_MAJOR"))).\(try XCTUnwrap(macro("CLUBHOUSE_ABI_MINOR")))"
        let umbrella = try String(contentsOfFile: prefix + "/include/clubhouse/clubhouse.h", encoding: .utf8)
        XCTAssertTrue(umbrella.split(separator: "\n").dropFirst().first?.contains("the Clubhouse plugin ABI, version \(abi) ") == true,
                      String(umbrella.prefix(200)))
        XCTAssertTrue(sdk.hasPrefix("PluginKit status: ready (ABI \(abi))"), String(sdk.prefix(80)))
        let c = try Clubhouse()
        try c.succeed(["plugin", "new", "abi-check", "--lang", "c", "--dir", c.scratch.path])
        let template = try String(contentsOfFile: c.path("abi-check/abi-check.c"), encoding: .utf8)
        XCTAssertTrue(template.contains(".build = CLUBHOUSE_BUILD_C,"), template) // "abi=" CLUBHOUSE_ABI_VERSION_STRING ";lang=c" (entry.h)
        for text in [template, sdk] {
            XCTAssertNil(text.range(of: #"abi=[0-9]"#, options: .regularExpression), "a hard-coded ABI version")
        }
        // status.h's clubhouse_status_name is in the header (helpers_check.c links no SDK library and calls it).
        let status = try String(contentsOfFile: prefix + "/include/clubhouse/clubhouse/status.h", encoding: .utf8)
        XCTAssertTrue(status.contains("static inline const char *clubhouse_status_name(clubhouse_status status) {"))
        XCTAssertFalse(status.contains("status.c"))
    }
}
