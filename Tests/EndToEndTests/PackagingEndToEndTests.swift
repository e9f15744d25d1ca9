// Plugin packages as an administrator meets them: pack, install, list, remove, two versions of one
// plugin side by side at two sites — and every bad package refused with one line, nothing
// half-installed. Bad archives are crafted here with a tar writer of the test's own.

import ClubhouseJSON
import Foundation
import XCTest

final class PackagingEndToEndTests: XCTestCase {
    static let id = "org.tests.pkg"

    /// A ustar archive written independently of the host's writer (so a bug is not shared).
    static func tar(_ entries: [(String, [UInt8])], typeflag: UInt8 = UInt8(ascii: "0")) -> [UInt8] {
        var out: [UInt8] = []
        for (name, bytes) in entries {
            var h = [UInt8](repeating: 0, count: 512)
            func field(_ s: String, _ at: Int) { for (i, b) in s.utf8.enumerated() { h[at + i] = b } }
            field(name, 0)
            field("0000644", 100); field("0000000", 108); field("0000000", 116)
            field(String(format: "%011o", bytes.count), 124)
            field("00000000000", 136)
            h[156] = typeflag
            field("ustar", 257); field("00", 263)
            for i in 148..<156 { h[i] = 32 }
            let sum = h.reduce(0) { $0 + Int($1) }
            field(String(format: "%06o", sum), 148); h[154] = 0; h[155] = 32
            out += h + bytes + [UInt8](repeating: 0, count: (512 - bytes.count % 512) % 512)
        }
        return out + [UInt8](repeating: 0, count: 1024)
    }

    /// Builds the fixture as `version` and packs it; returns the package and its manifest.
    func pack(_ c: Clubhouse, version: String, variant: String = "OK", readme: String? = nil) throws
        -> (path: String, manifest: JSONValue, library: String) {
        let library = try FixturePlugins.build(variant, id: Self.id, version: version)
        let out = c.path("\(Self.id)-\(version)-\(variant).chpkg")
        let reply = try c.succeed(["plugin", "pack", library, "--out", out, "--json"] + (readme.map { ["--readme", $0] } ?? [])).json()
        return (out, reply["manifest"] ?? .null, library)
    }

    func installTree(_ c: Clubhouse) -> String { c.dataDirectory.appendingPathComponent("plugins").path }

    /// Every file and folder under the install tree (hidden ones too), relative.
    func treeListing(_ c: Clubhouse) -> [String] {
        (FileManager.default.subpaths(atPath: installTree(c)) ?? []).sorted()
    }

    func testPackInstallListRemoveAndTwoVersionsRunSideBySide() throws {
        let c = try Clubhouse()
        let one = try pack(c, version: "1.2.0")
        let two = try pack(c, version: "2.0.0", readme: try c.write("README.md", "# Fixture 2\n"))
        XCTAssertEqual(two.manifest["readme"]?.stringValue, "README.md")
        let older = try pack(c, version: "1.1.0")
        XCTAssertEqual(one.manifest["id"]?.stringValue, Self.id)
        XCTAssertEqual(one.manifest["version"]?.stringValue, "1.2.0")
        XCTAssertEqual(one.manifest["sha256"]?.stringValue?.count, 64)
        XCTAssertEqual(one.manifest["abi"]?.stringValue?.hasPrefix("1."), true)
        XCTAssertNotNil(one.manifest["build"]?.stringValue)
        XCTAssertNotNil(one.manifest["min_host_version"]?.stringValue)
        // Packing is reproducible: the same library makes the same bytes.
        let again = c.path("again.chpkg")
        try c.succeed(["plugin", "pack", one.library, "--out", again])
        XCTAssertEqual(FileManager.default.contents(atPath: again), FileManager.default.contents(atPath: one.path))
        // The host's archive is a real ustar file: the system tar reads it.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/tar") || FileManager.default.isExecutableFile(atPath: "/bin/tar") {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/usr/bin/tar") ? "/usr/bin/tar" : "/bin/tar")
            p.arguments = ["-tf", one.path]
            let pipe = Pipe()
            p.standardOutput = pipe
            try p.run()
            p.waitUntilExit()
            let names = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertTrue(names.contains("manifest.json") && names.contains(".so"), names)
        }

        for package in [one, two, older] {
            XCTAssertTrue(try c.succeed(["plugin", "install", package.path]).stdout.contains("Installed \(Self.id)"))
        }
        // Installing the identical package again is fine and changes nothing.
        XCTAssertTrue(try c.succeed(["plugin", "install", one.path]).stdout.contains("already installed"))
        let listed = try c.succeed(["plugin", "list", "--installed", "--json"]).json()
        XCTAssertEqual(listed["installed"]?.arrayValue?.compactMap { $0["version"]?.stringValue }, ["1.1.0", "1.2.0", "2.0.0"])
        XCTAssertEqual(listed["installed"]?.arrayValue?.first?["sha256"]?.stringValue, older.manifest["sha256"]?.stringValue)
        let table = try c.succeed(["plugin", "list", "--installed"]).stdout
        XCTAssertTrue(table.hasPrefix("ID") && table.contains("\(Self.id)  2.0.0"), table)
        // Without --installed, plugin list is the site's list (as plugins list).
        XCTAssertNotNil(try c.succeed(["plugin", "list", "--json"]).json()["plugins"]?.arrayValue)
        XCTAssertTrue(try c.succeed(["plugin", "remove", "--help"]).stdout.contains("Usage: clubhouse plugin remove PLUGIN"))
        XCTAssertFalse(treeListing(c).contains { $0.contains("/.") }, "no work folders left: \(treeListing(c))")
        XCTAssertEqual(try String(contentsOfFile: installTree(c) + "/\(Self.id)/2.0.0/README.md", encoding: .utf8), "# Fixture 2\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: installTree(c) + "/\(Self.id)/1.2.0/README.md"))

        // Two sites, two requirements: each runs the highest installed version satisfying it.
        let config = try c.write("sites.json", """
            {"sites": {"old": {"plugins": {"fx": {"id": "\(Self.id)", "version": "^1.0", "grants": ["storage"]}}},
                       "new": {"plugins": {"fx": {"id": "\(Self.id)", "version": "^2.0", "grants": ["storage"]}}},
                       "any": {"plugins": {"fx": {"id": "\(Self.id)", "grants": ["storage"]}}}}}
            """)
        for (site, version) in [("old", "1.2.0"), ("new", "2.0.0"), ("any", "2.0.0")] {
            XCTAssertEqual(try c.succeed(["--config", config, "--site", site, "fx", "hello"]).stdout, "hello from \(Self.id)\n")
            let info = try c.succeed(["--config", config, "--site", site, "plugins", "info", "fx", "--json"]).json()
            XCTAssertEqual(info["version"]?.stringValue, version, "site \(site)")
            XCTAssertEqual(info["path"]?.stringValue?.hasPrefix(installTree(c) + "/\(Self.id)/\(version)/"), true, "\(info)")
            XCTAssertEqual(info["isolation"]?.stringValue, "auto")
            // Installed plugins run sandboxed by default (in a plain child where the kernel cannot sandbox).
            XCTAssertTrue(["sandbox", "process"].contains(info["effective_isolation"]?.stringValue ?? ""), "\(info)")
            XCTAssertEqual(info["isolation_reason"]?.stringValue?.hasPrefix("installed package in "), true, "\(info)")
        }

        // Remove one version, then the whole id.
        try c.succeed(["plugin", "remove", "\(Self.id)@1.2.0"])
        let info = try c.succeed(["--config", config, "--site", "old", "plugins", "info", "fx", "--json"]).json()
        XCTAssertEqual(info["version"]?.stringValue, "1.1.0", "the next highest ^1.0 is chosen")
        try c.succeed(["plugin", "remove", "\(Self.id)@1.1.0"])
        try c.fail(["--config", config, "--site", "old", "fx", "hello"],
                   contains: ["no installed version of \(Self.id) satisfies '^1.0'", "2.0.0"])
        try c.fail(["plugin", "remove", "\(Self.id)@1.1.0"], exitCode: 2, contains: ["\(Self.id)@1.1.0 is not installed"])
        try c.succeed(["plugin", "remove", Self.id])
        XCTAssertEqual(try c.succeed(["plugin", "list", "--installed", "--json"]).json()["installed"]?.arrayValue?.count, 0)
        XCTAssertEqual(treeListing(c), [])
        try c.fail(["plugin", "remove", "../etc"], exitCode: 2, contains: ["is not ID or ID@VERSION"])
    }

    func testConcurrentInstallsOfOnePackageInstallItOnce() throws {
        let c = try Clubhouse()
        let package = try pack(c, version: "3.0.0")
        nonisolated(unsafe) let shared = c
        nonisolated(unsafe) var codes = [Int32](repeating: -1, count: 3)
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 3) { i in
            let code = (try? shared.run(["plugin", "install", package.path], timeout: 60).exitCode) ?? -2
            lock.lock(); codes[i] = code; lock.unlock()
        }
        XCTAssertEqual(codes, [0, 0, 0])
        let library = package.manifest["library"]?.stringValue ?? ""
        XCTAssertEqual(treeListing(c), [Self.id, "\(Self.id)/3.0.0", "\(Self.id)/3.0.0/\(library)", "\(Self.id)/3.0.0/manifest.json"])
    }

    func testBadPackagesAreRefusedWithOneLineAndNothingHalfInstalled() throws {
        let c = try Clubhouse()
        let good = try pack(c, version: "1.0.0")
        let library = Array(try Data(contentsOf: URL(fileURLWithPath: good.library)))
        let libraryName = good.manifest["library"]?.stringValue ?? ""
        func manifest(_ change: (inout JSONObject) -> Void) -> [UInt8] {
            var m = good.manifest.objectValue ?? [:]
            change(&m)
            return Array(JSONWriter.pretty(.object(m)).utf8)
        }
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = c.path(name)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: good.path)))
        var damaged = whole
        damaged[10] ^= 0x20  // a byte of the first header's name
        let cases: [(String, [UInt8], [String])] = [
            ("wronghash", Self.tar([("manifest.json", manifest { $0["sha256"] = .string(String(repeating: "0", count: 64)) }),
                                    (libraryName, library)]),
             ["the library's SHA-256 is", "but the manifest says 0000", "altered or damaged"]),
            ("truncated", Array(whole.prefix(whole.count / 2)), ["the archive is truncated"]),
            ("checksum", damaged, ["header checksum is", "damaged archive"]),
            ("otherid", Self.tar([("manifest.json", manifest { $0["id"] = "org.tests.other" }), (libraryName, library)]),
             ["the manifest says org.tests.other 1.0.0 but the library's descriptor says \(Self.id) 1.0.0"]),
            ("escape", Self.tar([("manifest.json", manifest { _ in }), ("../\(libraryName)", library)]),
             ["entry '../\(libraryName)' has a '..' path, which would escape the install directory"]),
            ("absolute", Self.tar([("/tmp/evil.so", library)]), ["entry '/tmp/evil.so' has an absolute path"]),
            ("symlink", Self.tar([("link.so", [])], typeflag: UInt8(ascii: "2")), ["entry 'link.so' is not a regular file"]),
            ("nomanifest", Self.tar([(libraryName, library)]), ["the package has no manifest.json"]),
            ("abi", Self.tar([("manifest.json", manifest { $0["abi"] = "9.0" }), (libraryName, library)]),
             ["built for plugin ABI 9.0 but this host speaks ABI 1.x"]),
            ("newhost", Self.tar([("manifest.json", manifest { $0["min_host_version"] = "99.0.0" }), (libraryName, library)]),
             ["needs clubhouse 99.0.0 or newer"]),
        ]
        for (name, bytes, fragments) in cases {
            let path = try write("\(name).chpkg", bytes)
            try c.fail(["plugin", "install", path], contains: fragments)
            XCTAssertEqual(treeListing(c), [], "\(name) left files behind")
        }

        // A different build under an installed version is refused; the installed one stays.
        try c.succeed(["plugin", "install", good.path])
        let before = treeListing(c)
        let other = try pack(c, version: "1.0.0", variant: "ABI_NEWER_MINOR")
        try c.fail(["plugin", "install", other.path],
                   contains: ["\(Self.id) 1.0.0 is already installed from a different build", "plugin remove \(Self.id)@1.0.0"])
        XCTAssertEqual(treeListing(c), before)
        let installed = c.dataDirectory.appendingPathComponent("plugins/\(Self.id)/1.0.0/\(libraryName)")
        XCTAssertEqual(Array(try Data(contentsOf: installed)), library, "the installed library is untouched")

        // pack's own errors.
        // A path that names nothing is the user's to fix: exit 2 (issue 30).
        try c.fail(["plugin", "pack", c.path("absent.so"), "--out", c.path("x.chpkg")], exitCode: 2, contains: ["absent.so: cannot read the library"])
        let text = try c.write("text.so", "not a library")
        try c.fail(["plugin", "pack", text, "--out", c.path("x.chpkg")], contains: ["text.so: not a loadable plugin"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.path("x.chpkg")))
        try c.fail(["plugin", "install", c.path("absent.chpkg")], exitCode: 2, contains: ["absent.chpkg: cannot read the package"])
    }
    func testAPanelTravelsInItsPackageAndIsInstalledBesideTheLibrary() throws {
        let c = try Clubhouse()
        let web = c.scratch.appendingPathComponent("web")
        try FileManager.default.createDirectory(at: web, withIntermediateDirectories: true)
        let page = Array("<!doctype html><title>panel</title><script type=\"module\" src=\"app.js\"></script>\n".utf8)
        try Data(page).write(to: web.appendingPathComponent("index.html"))
        try Data("export const x = 1;\n".utf8).write(to: web.appendingPathComponent("app.js"))
        let library = try FixturePlugins.build("OK", id: Self.id, version: "1.3.0")
        let out = c.path("with-panel.chpkg")
        let manifest = try c.succeed(["plugin", "pack", library, "--out", out, "--web", web.path, "--json"]).json()["manifest"] ?? .null
        XCTAssertEqual(manifest["web"]?.objectValue?.keys.sorted(), ["app.js", "index.html"])
        try c.succeed(["plugin", "install", out])
        let installed = c.dataDirectory.appendingPathComponent("plugins/\(Self.id)/1.3.0/web/index.html")
        XCTAssertEqual(Array(try Data(contentsOf: installed)), page)
        XCTAssertTrue(try c.succeed(["plugin", "install", out]).stdout.contains("already installed (identical)"))
        try c.succeed(["plugin", "remove", "\(Self.id)@1.3.0"])

        // A panel file changed after packing, one the manifest names but the package lacks, one nested deeper.
        let entries = try Self.untar(Array(try Data(contentsOf: URL(fileURLWithPath: out))))
        let altered = entries.map { $0.0 == "web/app.js" ? ($0.0, Array("export const x = 2;\n".utf8)) : $0 }
        let cases: [(String, [(String, [UInt8])], [String])] = [
            ("altered", altered, ["web/app.js's SHA-256 is not the manifest's", "altered or damaged"]),
            ("missing", entries.filter { $0.0 != "web/app.js" }, ["the panel file web/app.js named by the manifest is not in the package"]),
            ("deeper", entries + [("web/a/b.js", [])], ["entry 'web/a/b.js' is not a plain file name"]),
            ("unsafe", entries.map { entry in
                guard entry.0 == "manifest.json", var m = (try? JSONParser.parse(bytes: entry.1))?.objectValue else { return entry }
                m["web"] = [".hidden": .string(String(repeating: "0", count: 64))]
                return (entry.0, Array(JSONWriter.pretty(.object(m)).utf8))
            }, ["the manifest's web file '.hidden' cannot be installed; repack the plugin"]),
        ]
        for (name, files, fragments) in cases {
            let path = c.path("\(name).chpkg")
            try Data(Self.tar(files)).write(to: URL(fileURLWithPath: path))
            try c.fail(["plugin", "install", path], contains: fragments)
            XCTAssertEqual(treeListing(c).filter { $0.contains("1.3.0") }, [], "\(name) left files behind")
        }
        // pack refuses a panel folder it cannot ship.
        try FileManager.default.createDirectory(at: web.appendingPathComponent("img"), withIntermediateDirectories: true)
        try c.fail(["plugin", "pack", library, "--out", c.path("x.chpkg"), "--web", web.path], contains: ["img: a panel's folder holds plain files only"])
        try c.fail(["plugin", "pack", library, "--out", c.path("x.chpkg"), "--web", c.path("absent")], contains: ["not a folder; --web names the plugin's panel folder"])
    }

    /// The entries of a ustar archive (regular files), read independently of the host's reader.
    static func untar(_ bytes: [UInt8]) throws -> [(String, [UInt8])] {
        var entries: [(String, [UInt8])] = []
        var at = 0
        while at + 512 <= bytes.count, bytes[at] != 0 {
            let header = Array(bytes[at..<at + 512])
            let name = String(decoding: header[0..<100].prefix { $0 != 0 }, as: UTF8.self)
            let size = Int(String(decoding: header[124..<136].prefix { $0 != 0 && $0 != 32 }, as: UTF8.self), radix: 8) ?? 0
            entries.append((name, Array(bytes[(at + 512)..<(at + 512 + size)])))
            at += 512 + (size + 511) / 512 * 512
        }
        return entries
    }
}
