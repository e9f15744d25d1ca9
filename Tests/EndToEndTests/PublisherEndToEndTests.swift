// Manifest and publisher (issue 32): `plugin keygen` makes an Ed25519 key openssl reads too,
// `plugin pack --sign` signs what openssl verifies (and signs the same bytes openssl signs),
// `plugin verify` checks a package, a site with "require_signatures" loads only packages signed by
// one of its "publishers" (naming the package and the key when it refuses), the manifest carries
// author, license, homepage, `requires` (checked at install and at load) and a minimum host. Ends
// with the administrator's path from signed packages through a failing migration, a rollback and
// a roll forward, with no row lost.

import ClubhouseJSON
import Foundation
import XCTest

final class PublisherEndToEndTests: XCTestCase {
    static let id = "org.tests.signed"

    /// openssl on the PATH, or nil (its checks are skipped, saying so).
    static let openssl: String? = {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(dir)/openssl"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    @discardableResult
    func openssl(_ arguments: [String], in c: Clubhouse) throws -> (Int32, Data) {
        guard let openssl = Self.openssl else { throw XCTSkip("openssl is not installed") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: openssl)
        p.arguments = arguments
        p.currentDirectoryURL = c.scratch
        let out = Pipe()
        p.standardOutput = out
        p.standardError = Pipe()
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, data)
    }

    func keygen(_ c: Clubhouse, _ name: String) throws -> String {
        try c.succeed(["plugin", "keygen", "--out", c.path(name), "--json"]).json()["public_key"]?.stringValue ?? ""
    }

    func pack(_ c: Clubhouse, version: String, variant: String = "OK", file: String = "fixture_plugin.c", id: String = PublisherEndToEndTests.id,
              _ extra: [String] = []) throws -> String {
        let library = try FixturePlugins.build(variant, id: id, version: version, file: file)
        let out = c.path("\(id)-\(version)-\(variant)-\(extra.count).chpkg")
        try c.succeed(["plugin", "pack", library, "--out", out] + extra)
        return out
    }

    /// The entries of a ustar file, by name (read here, not with the host's reader).
    func entries(_ path: String) throws -> [String: [UInt8]] {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var out: [String: [UInt8]] = [:]
        var offset = 0
        while offset + 512 <= bytes.count, bytes[offset] != 0 {
            let name = String(decoding: bytes[offset..<offset + 100].prefix { $0 != 0 }, as: UTF8.self)
            let size = Int(String(decoding: bytes[offset + 124..<offset + 135], as: UTF8.self), radix: 8) ?? 0
            out[name] = Array(bytes[offset + 512..<offset + 512 + size])
            offset += 512 + (size + 511) / 512 * 512
        }
        return out
    }

    func testKeysAndSignaturesInteroperateWithOpenSSL() throws {
        let c = try Clubhouse()
        let made = try c.succeed(["plugin", "keygen", "--out", c.path("acme.key")])
        XCTAssertTrue(made.stdout.contains("Wrote the private key \(c.path("acme.key")) (mode 0600"), made.stdout)
        let publicKey = try keygen(c, "second.key")
        XCTAssertTrue(publicKey.hasPrefix("ed25519:") && publicKey.count == 52, publicKey)
        let mode = (try FileManager.default.attributesOfItem(atPath: c.path("acme.key"))[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o600)
        try c.fail(["plugin", "keygen", "--out", c.path("acme.key")], exitCode: 2, contains: ["acme.key already exists; a key is never overwritten"])
        try c.fail(["plugin", "keygen", "--out", c.path("no/such/folder.key")], exitCode: 2, contains: ["folder.key: cannot create the key file"])

        // openssl reads the key and derives the same public key.
        let (rc, der) = try openssl(["pkey", "-in", "second.key", "-pubout", "-outform", "DER"], in: c)
        XCTAssertEqual(rc, 0)
        XCTAssertEqual("ed25519:" + Data(der.suffix(32)).base64EncodedString(), publicKey)

        // A signed package: openssl verifies the signature over the context and the manifest, and
        // openssl's own signature with the key is byte for byte ours (Ed25519 is deterministic).
        let package = try pack(c, version: "1.0.0", ["--sign", c.path("second.key")])
        let files = try entries(package)
        let signature = try JSONParser.parse(bytes: files["signature.json"] ?? [])
        XCTAssertEqual(signature["public_key"]?.stringValue, publicKey)
        let raw = Data(base64Encoded: signature["signature"]?.stringValue ?? "") ?? Data()
        try (Data("clubhouse-package-signature-v1\n".utf8) + Data(files["manifest.json"] ?? [])).write(to: URL(fileURLWithPath: c.path("signed.bin")))
        try raw.write(to: URL(fileURLWithPath: c.path("sig.bin")))
        try openssl(["pkey", "-in", "second.key", "-pubout", "-out", "second.pub"], in: c)
        let (verified, _) = try openssl(["pkeyutl", "-verify", "-pubin", "-inkey", "second.pub", "-rawin", "-in", "signed.bin", "-sigfile", "sig.bin"], in: c)
        XCTAssertEqual(verified, 0, "openssl verifies the package signature")
        let (signed, theirs) = try openssl(["pkeyutl", "-sign", "-inkey", "second.key", "-rawin", "-in", "signed.bin"], in: c)
        XCTAssertEqual(signed, 0)
        XCTAssertEqual(theirs, raw, "openssl signs the same bytes")
        // And a key openssl made signs with clubhouse.
        let (generated, _) = try openssl(["genpkey", "-algorithm", "ed25519", "-out", "openssl.key"], in: c)
        XCTAssertEqual(generated, 0)
        chmod(c.path("openssl.key"), 0o600)
        let other = try pack(c, version: "1.0.1", ["--sign", c.path("openssl.key")])
        XCTAssertTrue(try c.succeed(["plugin", "verify", other]).stdout.contains("signature valid"))
    }

    func testVerifyAndInstallRefuseWhatTheSignatureDoesNotCover() throws {
        let c = try Clubhouse()
        let key = try keygen(c, "acme.key")
        let readme = try c.write("README.md", "# Signed\n")
        let package = try pack(c, version: "1.0.0", ["--sign", c.path("acme.key"), "--readme", readme])
        XCTAssertTrue(try c.succeed(["plugin", "verify", package]).stdout.contains("signature valid: signed by \(key)"))
        XCTAssertTrue(try c.succeed(["plugin", "verify", package]).stdout.contains("site 'default' does not list this key under \"publishers\" (it lists none)"))
        let ok = try c.succeed(["plugin", "verify", package, "--json"]).json()
        XCTAssertEqual(ok["signed_by"]?.stringValue, key)
        XCTAssertEqual(ok["trusted_as"], .null)
        let unsigned = try pack(c, version: "1.0.0")
        try c.fail(["plugin", "verify", unsigned], contains: ["\(Self.id) 1.0.0 is intact but not signed; sign it with clubhouse plugin pack"])

        let files = try entries(package)
        func write(_ name: String, _ changes: [String: [UInt8]]) throws -> String {
            var e = files
            for (k, v) in changes { e[k] = v }
            let order = ["manifest.json"] + e.keys.filter { $0 != "manifest.json" }.sorted()
            let path = c.path(name)
            try Data(PackagingEndToEndTests.tar(order.map { ($0, e[$0] ?? []) })).write(to: URL(fileURLWithPath: path))
            return path
        }
        // A changed README: its hash is in the signed manifest.
        let readmeChanged = try write("readme.chpkg", ["README.md": Array("# Evil\n".utf8)])
        try c.fail(["plugin", "install", readmeChanged], contains: ["'README.md' has SHA-256", "but the manifest says", "altered or damaged"])
        // A changed manifest (the license): the signature no longer matches.
        let manifestText = String(decoding: files["manifest.json"] ?? [], as: UTF8.self)
        let relicensed = try write("manifest.chpkg", ["manifest.json": Array(manifestText.replacingOccurrences(of: "\"format\"", with: "\"license\": \"GPL\", \"format\"").utf8)])
        try c.fail(["plugin", "install", relicensed], contains: ["the signature by key \(key) does not verify (the signature does not match the message and key)"])
        try c.fail(["plugin", "verify", relicensed], contains: ["does not verify"])
        // S + L: the same signature made non-canonical (RFC 8032 §5.1.7) is refused as such.
        var signature = try JSONParser.parse(bytes: files["signature.json"] ?? []).objectValue ?? [:]
        var raw = [UInt8](Data(base64Encoded: signature["signature"]?.stringValue ?? "") ?? Data())
        let l: [UInt8] = [0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14] + [UInt8](repeating: 0, count: 15) + [0x10]
        var carry = 0
        for i in 0..<32 {
            let sum = Int(raw[32 + i]) + Int(l[i]) + carry
            raw[32 + i] = UInt8(sum & 255)
            carry = sum >> 8
        }
        signature["signature"] = .string(Data(raw).base64EncodedString())
        let malleated = try write("malleated.chpkg", ["signature.json": Array(JSONWriter.pretty(.object(signature)).utf8)])
        try c.fail(["plugin", "install", malleated], contains: ["does not verify (the signature's S is not below the group order (non-canonical))"])
        // A damaged signature file.
        let garbage = try write("garbage.chpkg", ["signature.json": Array("{\"algorithm\": \"rsa\"}".utf8)])
        try c.fail(["plugin", "install", garbage], contains: ["signature.json \"algorithm\" is \"rsa\"; this host verifies \"ed25519\""])
        // An entry the signed manifest does not name.
        let bare = try entries(try pack(c, version: "1.0.0", ["--sign", c.path("acme.key")]))
        let extra = c.path("extra.chpkg")
        try Data(PackagingEndToEndTests.tar(["manifest.json", "signature.json"].map { ($0, bare[$0] ?? []) }
            + bare.keys.filter { $0.hasSuffix(".so") }.map { ($0, bare[$0] ?? []) } + [("README.md", Array("# added\n".utf8))]))
            .write(to: URL(fileURLWithPath: extra))
        try c.fail(["plugin", "install", extra], contains: ["'README.md' is not in the manifest's \"files\", so the signature does not cover it"])
        // A manifest field of the wrong type (unsigned package).
        let plain = try entries(try pack(c, version: "1.0.0"))
        let wrongType = c.path("wrongtype.chpkg")
        let plainManifest = String(decoding: plain["manifest.json"] ?? [], as: UTF8.self).replacingOccurrences(of: "\"format\"", with: "\"requires\": 5, \"format\"")
        try Data(PackagingEndToEndTests.tar([("manifest.json", Array(plainManifest.utf8))] + plain.keys.filter { $0.hasSuffix(".so") }.map { ($0, plain[$0] ?? []) }))
            .write(to: URL(fileURLWithPath: wrongType))
        try c.fail(["plugin", "install", wrongType], contains: ["manifest.json \"requires\" must be an object of id → version range, not"])
        XCTAssertEqual(try c.succeed(["plugin", "list", "--installed", "--json"]).json()["installed"]?.arrayValue?.count, 0, "nothing was installed")
    }

    func testASiteThatRequiresSignaturesLoadsOnlyItsPublishersPackages() throws {
        let c = try Clubhouse()
        let acme = try keygen(c, "acme.key")
        let other = try keygen(c, "other.key")
        try c.succeed(["plugin", "install", try pack(c, version: "1.0.0", ["--sign", c.path("acme.key")])])
        try c.succeed(["plugin", "install", try pack(c, version: "2.0.0", ["--sign", c.path("other.key")])])
        try c.succeed(["plugin", "install", try pack(c, version: "3.0.0")])
        let path = try FixturePlugins.build("OK", id: "org.tests.loose", version: "1.0.0")
        let config = try c.write("plugins.json", """
            {"publishers": {"acme": "\(acme)"},
             "sites": {"s": {"require_signatures": true,
                             "plugins": {"one": {"id": "\(Self.id)", "version": "^1.0", "grants": ["storage"]},
                                         "two": {"id": "\(Self.id)", "version": "^2.0", "grants": ["storage"]},
                                         "three": {"id": "\(Self.id)", "version": "^3.0", "grants": ["storage"]},
                                         "loose": {"path": "\(path)", "grants": ["storage"]},
                                         "waived": {"path": "\(path)", "grants": ["storage"], "require_signatures": false},
                                         "notes": {"id": "org.example.notes", "grants": ["storage"]}}},
                       "open": {"plugins": {"three": {"id": "\(Self.id)", "grants": ["storage"]}}}}}
            """)
        func run(_ alias: String) throws -> ClubhouseResult { try c.run(["--config", config, "--site", "s", alias, "hello"]) }
        XCTAssertEqual(try run("one").stdout, "hello from \(Self.id)\n", "signed by a publisher of the site")
        let tree = c.dataDirectory.appendingPathComponent("plugins/\(Self.id)").path
        try c.fail(["--config", config, "--site", "s", "two", "hello"],
                   contains: ["plugin 'two': the package \(Self.id) 2.0.0 (\(tree)/2.0.0) is signed by key \(other)", "which site 's' does not trust (its publishers: acme)",
                              "add it under \"publishers\" in \(config)"])
        try c.fail(["--config", config, "--site", "s", "three", "hello"],
                   contains: ["plugin 'three': the package \(Self.id) 3.0.0 (\(tree)/3.0.0) is not signed, but site 's' requires signatures (\(config):5:", "one of its publishers (acme)"])
        try c.fail(["--config", config, "--site", "s", "loose", "hello"],
                   contains: ["plugin 'loose': \(path) does not come from an installed package, so it carries no signature", "\"require_signatures\": false for this plugin"])
        XCTAssertEqual(try run("waived").stdout, "hello from org.tests.loose\n", "a plugin's own require_signatures wins")
        XCTAssertEqual(try c.succeed(["--config", config, "--site", "s", "notes", "ping", "--json"]).exitCode, 0, "bundled plugins are the host's own")
        XCTAssertEqual(try c.succeed(["--config", config, "--site", "open", "three", "hello"]).stdout, "hello from \(Self.id)\n", "a site that does not ask loads unsigned packages")

        // plugin list --installed names the signer as the site knows it.
        let listed = try c.succeed(["--config", config, "--site", "s", "plugin", "list", "--installed", "--json"]).json()
        let signers = (listed["installed"]?.arrayValue ?? []).map { $0["signer"]?.stringValue ?? "" }
        XCTAssertTrue(signers[0].hasPrefix("acme ("), "\(signers)")
        XCTAssertTrue(signers[1].hasSuffix("(not a listed publisher)"), "\(signers)")
        XCTAssertEqual(signers[2], "unsigned")
        XCTAssertTrue(try c.succeed(["--config", config, "--site", "s", "plugin", "list", "--installed"]).stdout.contains("SIGNER"))
        XCTAssertTrue(try c.succeed(["--config", config, "--site", "s", "plugin", "verify", try pack(c, version: "1.0.0", ["--sign", c.path("acme.key")])])
            .stdout.contains("site 's' trusts it as publisher 'acme'"))

        // After install: a changed manifest, and a library swapped for another build, are refused.
        let installed = tree + "/1.0.0"
        let manifest = installed + "/manifest.json"
        let original = try String(contentsOfFile: manifest, encoding: .utf8)
        try original.replacingOccurrences(of: "\"format\"", with: "\"author\": \"someone else\", \"format\"").write(toFile: manifest, atomically: true, encoding: .utf8)
        try c.fail(["--config", config, "--site", "s", "one", "hello"], contains: ["the signature of the package \(Self.id) 1.0.0", "by key \(acme) does not verify"])
        XCTAssertTrue((try c.succeed(["--config", config, "--site", "s", "plugin", "list", "--installed"]).stdout).contains("INVALID signature"))
        try original.write(toFile: manifest, atomically: true, encoding: .utf8)
        let signatureFile = installed + "/signature.json"
        let signatureText = try String(contentsOfFile: signatureFile, encoding: .utf8)
        try "{}".write(toFile: signatureFile, atomically: true, encoding: .utf8)
        try c.fail(["--config", config, "--site", "s", "one", "hello"], contains: ["the package \(Self.id) 1.0.0", "has a damaged signature (signature.json \"algorithm\" is missing"])
        try signatureText.write(toFile: signatureFile, atomically: true, encoding: .utf8)
        XCTAssertEqual(try run("one").stdout, "hello from \(Self.id)\n")
        let library = (try FileManager.default.contentsOfDirectory(atPath: installed)).first { $0.hasSuffix(".so") } ?? ""
        let swapped = try FixturePlugins.build("ABI_NEWER_MINOR", id: Self.id, version: "1.0.0")
        try FileManager.default.removeItem(atPath: installed + "/" + library)
        try FileManager.default.copyItem(atPath: swapped, toPath: installed + "/" + library)
        try c.fail(["--config", config, "--site", "s", "one", "hello"],
                   contains: ["but the signed manifest of \(Self.id) 1.0.0 says", "the library changed after it was installed: reinstall the package"])
    }

    func testTheManifestCarriesWhatAnAdministratorExpectsAndRequiresIsChecked() throws {
        let c = try Clubhouse()
        let base = "org.tests.base"
        let dependent = try pack(c, version: "1.0.0", id: "org.tests.dependent",
                                 ["--author", "Acme Golf <dev@acme.example>", "--license", "Apache-2.0 OR MIT", "--homepage", "https://acme.example/dependent",
                                  "--requires", "\(base) ^2.0; org.example.notes >=1.0.0"])
        let manifest = try JSONParser.parse(bytes: try entries(dependent)["manifest.json"] ?? [])
        XCTAssertEqual(manifest["author"]?.stringValue, "Acme Golf <dev@acme.example>")
        XCTAssertEqual(manifest["license"]?.stringValue, "Apache-2.0 OR MIT")
        XCTAssertEqual(manifest["homepage"]?.stringValue, "https://acme.example/dependent")
        XCTAssertEqual(manifest["requires"]?[base]?.stringValue, "^2.0")
        XCTAssertEqual(manifest["requires"]?["org.example.notes"]?.stringValue, ">=1.0.0")
        let verified = try c.run(["plugin", "verify", dependent])
        XCTAssertTrue(verified.stderr.contains("is intact but not signed"), verified.stderr)

        // At install: the required plugin must be installed in a matching version (notes is bundled).
        try c.fail(["plugin", "install", dependent], contains: ["org.tests.dependent 1.0.0 requires \(base) '^2.0' (none is installed)", "nothing was installed"])
        try c.succeed(["plugin", "install", try pack(c, version: "1.0.0", id: base)])
        try c.fail(["plugin", "install", dependent], contains: ["requires \(base) '^2.0' (installed: 1.0.0)"])
        try c.succeed(["plugin", "install", try pack(c, version: "2.1.0", id: base)])
        try c.succeed(["plugin", "install", dependent])

        // At load: the site must run it, in the range.
        let config = try c.write("plugins.json", """
            {"sites": {"alone": {"plugins": {"dep": {"id": "org.tests.dependent", "grants": ["storage"]}}},
                       "old": {"plugins": {"dep": {"id": "org.tests.dependent", "grants": ["storage"]},
                                           "base": {"id": "\(base)", "version": "^1.0", "grants": ["storage"]},
                                           "notes": {"id": "org.example.notes", "grants": ["storage"]}}},
                       "broken": {"plugins": {"dep": {"id": "org.tests.dependent", "grants": ["storage"]},
                                              "base": {"id": "\(base)", "version": "^9.0", "grants": ["storage"]},
                                              "notes": {"id": "org.example.notes", "grants": ["storage"]}}},
                       "good": {"plugins": {"dep": {"id": "org.tests.dependent", "grants": ["storage"]},
                                            "base": {"id": "\(base)", "grants": ["storage"]},
                                            "notes": {"id": "org.example.notes", "grants": ["storage"]}}}}}
            """)
        try c.fail(["--config", config, "--site", "alone", "dep", "hello"],
                   contains: ["plugin 'dep': org.tests.dependent 1.0.0 requires \(base) '^2.0' (its package manifest), which site 'alone' does not run",
                              "(\"id\": \"\(base)\", \"version\": \"^2.0\")"])
        try c.fail(["--config", config, "--site", "old", "dep", "hello"],
                   contains: ["requires \(base) '^2.0' (its package manifest), but site 'old' runs \(base) 1.0.0 (plugin 'base')"])
        try c.fail(["--config", config, "--site", "broken", "dep", "hello"],
                   contains: ["requires \(base) '^2.0' (its package manifest), but plugin 'base' that provides it does not load (clubhouse plugins list says why)"])
        XCTAssertEqual(try c.succeed(["--config", config, "--site", "good", "dep", "hello"]).stdout, "hello from org.tests.dependent\n")

        // The minimum host: refused at install, and at load for a package another host installed.
        let future = try pack(c, version: "1.0.0", id: "org.tests.future", ["--min-host", "99.0.0"])
        try c.fail(["plugin", "install", future], contains: ["needs clubhouse 99.0.0 or newer"])
        let folder = c.dataDirectory.appendingPathComponent("plugins/\(base)/2.1.0/manifest.json").path
        let text = try String(contentsOfFile: folder, encoding: .utf8)
        try text.replacingOccurrences(of: #""min_host_version": ""#, with: #""min_host_version": "99.0.0", "was": ""#).write(toFile: folder, atomically: true, encoding: .utf8)
        try c.fail(["--config", config, "--site", "good", "base", "hello"],
                   contains: ["plugin 'base': \(base) 2.1.0 needs clubhouse 99.0.0 or newer (its manifest's min_host_version)", "upgrade clubhouse"])

        // Bad values are the packer's to fix (exit 2).
        for (option, value, message) in [("--homepage", "ftp://acme.example", "--homepage must be an http(s) URL"),
                                         ("--license", "", "--license must be 1 to 100 characters"),
                                         ("--author", "Acme\u{7}", "--author must be 1 to 200 characters without control characters"),
                                         ("--requires", "org.x.a ^1.0; org.x.a ^2.0", "--requires: 'org.x.a' is required twice"),
                                         ("--requires", "notes", "--requires: requirement 'notes': 'notes' is not a plugin id"),
                                         ("--requires", "org.example.notes", "needs a version range after the id"),
                                         ("--requires", "org.tests.dependent ^1.0", "org.tests.dependent cannot require itself"),
                                         ("--min-host", "soon", "--min-host 'soon' is not a version"),
                                         ("--sign", c.path("absent.key"), "--sign \(c.path("absent.key")): cannot read the key"),
                                         ("--sign", try c.write("not.key", "hello"), "not a PEM private key")] {
            let library = try FixturePlugins.build("OK", id: "org.tests.dependent", version: "1.0.0")
            try c.fail(["plugin", "pack", library, "--out", c.path("bad.chpkg"), option, value], exitCode: 2, contains: [message])
            XCTAssertFalse(FileManager.default.fileExists(atPath: c.path("bad.chpkg")), option)
        }
        // A key others can read still signs, with a warning.
        let key = c.path("open.key")
        _ = try keygen(c, "open.key")
        chmod(key, 0o644)
        let loose = try c.run(["plugin", "pack", try FixturePlugins.build("OK", id: "org.tests.dependent", version: "1.0.0"), "--out", c.path("loose.chpkg"), "--sign", key])
        XCTAssertEqual(loose.exitCode, 0)
        XCTAssertTrue(loose.stderr.contains("warning: \(key) can be read by others (mode 644); a signing key should be private: chmod 600"), loose.stderr)
    }

    /// Issue 32's "done when", the part a C plugin and this checkout can show: built, validated,
    /// signed, packed, installed, locked, upgraded with a failing migration, rolled back and rolled
    /// forward with no row lost, at a site that requires signatures.
    func testTheAdministratorsPathFromSignedPackagesLosesNoRow() throws {
        let c = try Clubhouse()
        let id = "org.tests.upgrade"
        let acme = try keygen(c, "acme.key")
        func signed(_ variant: String, _ version: String) throws -> String {
            let library = try FixturePlugins.build(variant, id: id, version: version, file: "upgrade_plugin.c")
            // The failing build fails on any database, so it cannot pass validation; the others do.
            if variant != "V2_FAILS" { try c.succeed(["plugin", "validate", library]) }
            let out = c.path("\(variant)-\(version).chpkg")
            try c.succeed(["plugin", "pack", library, "--out", out, "--sign", c.path("acme.key"), "--license", "MIT"])
            return out
        }
        let config = try c.write("club.json", """
            {"publishers": {"acme": "\(acme)"},
             "sites": {"s": {"require_signatures": true, "plugins": {"fx": {"id": "\(id)", "grants": ["storage"]}}}}}
            """)
        func count() throws -> String {
            let v = try c.succeed(["--config", config, "--site", "s", "fx", "count", "--json"]).json()
            return "\(v["version"]?.stringValue ?? "") \(v["notes"]?.intValue ?? -1)"
        }
        try c.succeed(["plugin", "install", try signed("V1", "1.0.0")])
        try c.succeed(["--config", config, "lock"])
        for _ in 0..<3 { try c.succeed(["--config", config, "--site", "s", "fx", "add"]) }
        XCTAssertEqual(try count(), "1.0.0 3")

        // 2.0.0's third migration fails: the database comes back as 1.0.0 left it.
        try c.succeed(["plugin", "install", try signed("V2_FAILS", "2.0.0")])
        try c.succeed(["--config", config, "lock"])
        try c.fail(["--config", config, "--site", "s", "fx", "count"], contains: ["migration 3 ('tags') of plugin 'fx' failed", "the database was restored"])
        try c.succeed(["--config", config, "--site", "s", "plugin", "rollback", "fx"])
        XCTAssertEqual(try count(), "1.0.0 3")
        try c.succeed(["--config", config, "--site", "s", "fx", "add"])

        // A fixed 2.0.1: releasing the pin moves the site on; 2.0.1 migrates every row.
        try c.succeed(["plugin", "install", try signed("V2", "2.0.1")])
        XCTAssertTrue(try c.succeed(["--config", config, "lock", "--check"]).stdout.contains("held at 1.0.0 by the rollback from 2.0.0"))
        let forward = try c.succeed(["--config", config, "lock", "--release-pin", "fx"]).stdout
        XCTAssertTrue(forward.contains("forward from 1.0.0 to 2.0.1"), forward)
        XCTAssertTrue(forward.contains("the rollback kept no newer data"), forward)
        XCTAssertEqual(try count(), "2.0.1 4")
        let database = c.dataDirectory.appendingPathComponent("s/\(id).sqlite").path
        XCTAssertEqual(KeptDatabases.integrity(database), "ok")
        XCTAssertEqual(KeptDatabases.count(database, "notes"), 4)
        for copy in KeptDatabases.list(c.dataDirectory.appendingPathComponent("s/\(id).backups").path) {
            XCTAssertEqual(KeptDatabases.integrity(copy.file), "ok", copy.file)
            XCTAssertGreaterThanOrEqual(KeptDatabases.count(copy.file, "notes"), 3, copy.label)
        }
    }
}
