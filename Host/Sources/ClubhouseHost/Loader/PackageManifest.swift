// What a plugin package says about itself beyond its id and version, and who vouches for it.
//
// manifest.json (written by `clubhouse plugin pack`) may carry, besides id, version, ABI, build and
// the library's SHA-256: "author", "license", "homepage", "requires" (other plugin ids with version
// ranges, checked at install and at load), "min_host_version" (a host older than that refuses the
// package, at install and at load) and "files" (the SHA-256 of every other entry, eg README.md).
//
// signature.json, when present, is an Ed25519 signature (RFC 8032; ClubhouseHashing) of
// "clubhouse-package-signature-v1\n" followed by manifest.json's exact bytes. The manifest names the
// hash of every other entry, so the signature covers the whole package. A site that sets
// "require_signatures" in plugins.json loads an installed package only when its signature verifies
// with a key the site lists under "publishers"; the library's bytes are hashed (from the descriptor
// that is then loaded) and compared with the signed manifest.

import ClubhouseHashing
import ClubhouseJSON
import ClubhousePlatform
import ClubhouseLoader

/// Another plugin a package needs: an id and the versions that will do.
public struct PackageRequirement: Sendable {
    public var id: String
    public var requirement: VersionRequirement

    /// "ID RANGE; ID RANGE" (ranges as plugins.json writes them: "^1.2", ">=1.0.0 <2.0.0", "*").
    public static func parseList(_ text: String) -> Result<[PackageRequirement], PackageError> {
        var out: [PackageRequirement] = []
        for part in text.split(separator: ";") {
            let words = part.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = words.first else { continue }
            let id = String(first), range = words.dropFirst().joined(separator: " ")
            guard PluginLoader.isReverseDNS(id) else {
                return .failure(PackageError("requirement '\(part.trimmed)': '\(id)' is not a plugin id (reverse-DNS, eg: org.example.notes)"))
            }
            guard !range.isEmpty, let requirement = VersionRequirement(range) else {
                return .failure(PackageError("requirement '\(part.trimmed)' needs a version range after the id, eg: \"\(id) ^1.0\" (\"*\" for any version)"))
            }
            guard !out.contains(where: { $0.id == id }) else { return .failure(PackageError("'\(id)' is required twice")) }
            out.append(PackageRequirement(id: id, requirement: requirement))
        }
        return .success(out)
    }
}

public struct PackageError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The optional fields of a manifest, read and checked.
public struct PackageMetadata: Sendable {
    public var author: String?
    public var license: String?
    public var homepage: String?
    public var requires: [PackageRequirement] = []
    public var minHostVersion: SemanticVersion?
    /// Entry name → SHA-256 (lowercase hex) of the entries other than the manifest, its signature and the library.
    public var files: [String: String] = [:]

    public init() {}

    /// The fields of `manifest`; a field of the wrong type or form is an error naming it.
    public init(manifest: JSONValue) throws(PackageError) {
        func text(_ key: String) throws(PackageError) -> String? {
            guard let v = manifest[key] else { return nil }
            guard let s = v.stringValue else { throw PackageError("manifest.json \"\(key)\" must be a string, not \(v.kindName)") }
            return s
        }
        author = try text("author")
        license = try text("license")
        homepage = try text("homepage")
        if let problem = PackageMetadata.check(author: author, license: license, homepage: homepage) { throw PackageError("manifest.json \(problem)") }
        if let minimum = try text("min_host_version") {
            guard let v = SemanticVersion(minimum) else { throw PackageError("manifest.json \"min_host_version\" '\(minimum)' is not a version") }
            minHostVersion = v
        }
        if let r = manifest["requires"] {
            guard let object = r.objectValue else { throw PackageError("manifest.json \"requires\" must be an object of id → version range, not \(r.kindName)") }
            for (id, range) in object {
                guard PluginLoader.isReverseDNS(id) else { throw PackageError("manifest.json \"requires\": '\(id)' is not a plugin id") }
                guard let text = range.stringValue, let requirement = VersionRequirement(text) else {
                    throw PackageError("manifest.json \"requires\": the range of \(id) is not a version range, eg: \"^1.0\"")
                }
                requires.append(PackageRequirement(id: id, requirement: requirement))
            }
        }
        if let f = manifest["files"] {
            guard let object = f.objectValue else { throw PackageError("manifest.json \"files\" must be an object of name → SHA-256, not \(f.kindName)") }
            for (name, hash) in object {
                guard let hex = hash.stringValue, hex.utf8.count == 64, Hex.decode(hex) != nil else {
                    throw PackageError("manifest.json \"files\": the SHA-256 of '\(name)' is not 64 hex digits")
                }
                files[name] = hex.lowercased()
            }
        }
    }

    /// One-line problem with author/license/homepage as an administrator would read them, or nil.
    public static func check(author: String?, license: String?, homepage: String?) -> String? {
        func plain(_ s: String) -> Bool { !s.unicodeScalars.contains { $0.value < 32 || $0.value == 127 } }
        if let author, author.isEmpty || author.count > 200 || !plain(author) {
            return "\"author\" must be 1 to 200 characters without control characters, eg: \"Acme Golf Software <dev@acme.example>\""
        }
        if let license, license.isEmpty || license.count > 100 || !plain(license) {
            return "\"license\" must be 1 to 100 characters, eg: an SPDX expression such as \"MIT\" or \"Apache-2.0 OR MIT\""
        }
        if let homepage, !(homepage.hasPrefix("https://") || homepage.hasPrefix("http://")) || homepage.count > 2000
            || homepage.contains(" ") || !plain(homepage) || homepage.split(separator: "/").count < 2 {
            return "\"homepage\" must be an http(s) URL without spaces, eg: \"https://acme.example/putting\""
        }
        return nil
    }

    /// The manifest fields for these values (only those set).
    public var json: JSONObject {
        var o = JSONObject()
        if let author { o["author"] = .string(author) }
        if let license { o["license"] = .string(license) }
        if let homepage { o["homepage"] = .string(homepage) }
        if !requires.isEmpty {
            var r = JSONObject()
            for q in requires { r[q.id] = .string(q.requirement.description) }
            o["requires"] = .object(r)
        }
        if let minHostVersion { o["min_host_version"] = .string(minHostVersion.description) }
        if !files.isEmpty {
            var f = JSONObject()
            for (name, hash) in files.sorted(by: { $0.key < $1.key }) { f[name] = .string(hash) }
            o["files"] = .object(f)
        }
        return o
    }

    /// Why this host cannot run the package (min_host_version above it), or nil.
    public func hostRefusal(id: String, version: String) -> String? {
        guard let minHostVersion, let have = SemanticVersion(ClubhouseVersion.string), have < minHostVersion else { return nil }
        return "\(id) \(version) needs clubhouse \(minHostVersion) or newer (its manifest's min_host_version); this is \(ClubhouseVersion.string): upgrade clubhouse, or install a build of the plugin made for this host"
    }
}

/// A package's Ed25519 signature (signature.json).
public struct PackageSignature: Sendable, Equatable {
    public static let fileName = "signature.json"
    /// What is signed before the manifest's bytes (so a signature of a package is never a signature of anything else).
    public static let context = Array("clubhouse-package-signature-v1\n".utf8)

    public var publicKey: [UInt8]
    public var signature: [UInt8]

    public var keyText: String { Ed25519.publicKeyText(publicKey) }
    public var fingerprint: String { Ed25519.fingerprint(publicKey) }

    /// The signature of `manifest` by `seed`, as signature.json's bytes.
    public static func sign(manifest: [UInt8], seed: [UInt8]) -> [UInt8] {
        let key = Ed25519.publicKey(seed: seed)
        let signature = Ed25519.sign(context + manifest, seed: seed)
        let json: JSONValue = ["format": .int(1), "algorithm": "ed25519", "public_key": .string(Ed25519.publicKeyText(key)),
                               "signature": .string(Base64.encode(signature))]
        return Array((JSONWriter.pretty(json) + "\n").utf8)
    }

    /// Reads signature.json (its form only: `verify` checks it).
    public static func parse(_ bytes: [UInt8]) -> Result<PackageSignature, PackageError> {
        guard let v = try? JSONParser.parse(bytes: bytes), v.objectValue != nil else {
            return .failure(PackageError("\(fileName) is not a JSON object"))
        }
        guard v["algorithm"]?.stringValue == "ed25519" else {
            return .failure(PackageError("\(fileName) \"algorithm\" is \(v["algorithm"].map(JSONWriter.compact) ?? "missing"); this host verifies \"ed25519\""))
        }
        guard let keyText = v["public_key"]?.stringValue else { return .failure(PackageError("\(fileName) lacks \"public_key\"")) }
        let key: [UInt8]
        switch Ed25519.parsePublicKey(keyText) {
        case .success(let k): key = k
        case .failure(let e): return .failure(PackageError("\(fileName) \"public_key\": \(e.message)"))
        }
        guard let text = v["signature"]?.stringValue, let signature = Base64.decode(text), signature.count == 64 else {
            return .failure(PackageError("\(fileName) \"signature\" must be the 64 bytes of an Ed25519 signature in base64"))
        }
        return .success(PackageSignature(publicKey: key, signature: signature))
    }

    public func verify(manifest: [UInt8]) -> Ed25519.Verification {
        Ed25519.verify(signature, message: PackageSignature.context + manifest, publicKey: publicKey)
    }
}

/// The package files beside an installed library (`<data home>/plugins/<id>/<version>/`).
public struct InstalledPackage: Sendable {
    public var folder: String
    public var manifestBytes: [UInt8]
    public var manifest: JSONValue
    public var metadata: PackageMetadata
    /// nil: unsigned. A signature.json that cannot be read is `.failure`.
    public var signature: Result<PackageSignature, PackageError>?

    /// The package of `library` when it lies in `installRoot` and its folder holds a manifest.
    public static func of(library: String, installRoot: String) -> Result<InstalledPackage, PackageError>? {
        let real = FileSystem.realPath(library) ?? library
        let root = FileSystem.realPath(installRoot) ?? installRoot
        guard real.hasPrefix(root + "/") else { return nil }
        let folder = FileSystem.directoryName(real)
        let manifestPath = folder + "/manifest.json"
        guard FileSystem.exists(manifestPath) else { return nil }
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(manifestPath) } catch { return .failure(PackageError("\(manifestPath): cannot read (\(error.reason))")) }
        guard let manifest = try? JSONParser.parse(bytes: bytes), manifest.objectValue != nil else {
            return .failure(PackageError("\(manifestPath) is not a JSON object; reinstall the package"))
        }
        let metadata: PackageMetadata
        do { metadata = try PackageMetadata(manifest: manifest) } catch { return .failure(PackageError("\(folder): \(error.message)")) }
        var signature: Result<PackageSignature, PackageError>?
        let signaturePath = folder + "/" + PackageSignature.fileName
        if FileSystem.exists(signaturePath) {
            if let b = try? FileSystem.read(signaturePath) { signature = PackageSignature.parse(b) }
            else { signature = .failure(PackageError("\(signaturePath): cannot read")) }
        }
        return .success(InstalledPackage(folder: folder, manifestBytes: bytes, manifest: manifest, metadata: metadata, signature: signature))
    }

    public var id: String { manifest["id"]?.stringValue ?? "?" }
    public var version: String { manifest["version"]?.stringValue ?? "?" }

    /// Who signed it, as a site sees it: ("acme (3f2a…)", trusted) or why it is not signed well.
    public func signer(trusting publishers: [String: [UInt8]]) -> (text: String, verified: Bool, trustedAs: String?) {
        switch signature {
        case nil: return ("unsigned", false, nil)
        case .failure(let e)?: return ("bad signature file (\(e.message))", false, nil)
        case .success(let s)?:
            guard s.verify(manifest: manifestBytes) == .valid else { return ("INVALID signature by \(s.fingerprint)", false, nil) }
            if let name = publishers.first(where: { $0.value == s.publicKey })?.key { return ("\(name) (\(s.fingerprint))", true, name) }
            return ("\(s.fingerprint) (not a listed publisher)", true, nil)
        }
    }
}

extension Substring {
    fileprivate var trimmed: String { String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}
