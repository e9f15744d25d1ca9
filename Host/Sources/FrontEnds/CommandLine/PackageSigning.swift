// A package's publisher and what it says about itself (issue 32, "manifest and publisher"):
// - `clubhouse plugin keygen --out KEY`: a new Ed25519 key (PKCS #8 PEM, mode 0600; openssl reads
//   it too), printing the public key a site lists under "publishers";
// - `plugin pack … --sign KEY` signs the manifest (Loader/PackageManifest.swift says what is signed),
//   and `--author`, `--license`, `--homepage`, `--requires`, `--min-host` fill the manifest;
// - `plugin verify PKG`: the archive, the hashes and the signature, and whether the site trusts it;
// - `plugin install` refuses a signature that does not verify, entries whose hash is not the
//   manifest's, and a package whose required plugins are not installed.

import ClubhouseHost
import ClubhousePlatform
import ClubhouseLoader
import ClubhouseHashing
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

enum PackageSigning {
    static func usage(_ message: String) -> CLIError { CLIError(status: .invalidArgument, message: message) }

    // MARK: keygen

    static func keygen(out given: String, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let path = FileSystem.absolute(given)
        let seed: [UInt8]
        switch SecureRandom.bytes(32) {   // the kernel's getrandom(2), as for device tokens
        case .success(let bytes): seed = bytes
        case .failure(let e): throw CLIError(status: .error, message: "cannot make a key: \(e.reason); nothing was written")
        }
        let pem = Array(Ed25519.privateKeyPEM(seed: seed).utf8)
        // O_EXCL: an existing key is never replaced; 0600 from the start (the umask only removes bits).
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            let code = errno
            if code == EEXIST { throw usage("\(given) already exists; a key is never overwritten: choose another --out, or remove it if it is no longer used") }
            throw CLIError(status: code == ENOENT || code == ENOTDIR ? .invalidArgument : .error,
                           message: "\(given): cannot create the key file (\(String(cString: strerror(code))))")
        }
        fchmod(fd, 0o600)
        let failure = Descriptor.writeAll(fd, pem) ?? (fsync(fd) == 0 ? nil : String(cString: strerror(errno)))
        close(fd)
        if let failure {
            unlink(path)
            throw CLIError(status: .error, message: "\(given): cannot write the key (\(failure)); nothing was kept")
        }
        let key = Ed25519.publicKeyText(Ed25519.publicKey(seed: seed))
        BuiltinCommands.output(options, json: ["private_key": .string(path), "public_key": .string(key),
                                               "fingerprint": .string(Ed25519.fingerprint(Ed25519.publicKey(seed: seed)))],
                               text: """
                               Wrote the private key \(path) (mode 0600: keep it secret; sign with clubhouse plugin pack LIBRARY --out PKG --sign \(given))
                               public key: \(key)
                               A site trusts it with, in plugins.json: "publishers": {"NAME": "\(key)"}

                               """)
        return 0
    }

    /// The seed of the private key file `given` (a PKCS #8 PEM Ed25519 key); warns when others can read it.
    static func signingKey(_ given: String) throws(CLIError) -> [UInt8] {
        let path = FileSystem.absolute(given)
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path) } catch {
            throw CLIError(status: error.isMissing ? .invalidArgument : .error, message: "--sign \(given): cannot read the key (\(error.reason))")
        }
        switch Ed25519.parsePrivateKeyPEM(String(decoding: bytes, as: UTF8.self)) {
        case .failure(let e): throw usage("--sign \(given): \(e.message)")
        case .success(let seed):
            var st = stat()
            if stat(path, &st) == 0, st.st_mode & 0o077 != 0 {
                StandardStreams.writeError("clubhouse: warning: \(given) can be read by others (mode \(String(st.st_mode & 0o777, radix: 8))); a signing key should be private: chmod 600 \(given)\n")
            }
            return seed
        }
    }

    // MARK: pack

    /// What `plugin pack` adds to the manifest, and the key that signs it.
    struct PackOptions {
        var author, license, homepage, requires, minHost, sign: String?

        func metadata(id: String) throws(CLIError) -> PackageMetadata {
            try PackageSigning.metadata(author: author, license: license, homepage: homepage, requires: requires, minHost: minHost, id: id)
        }
    }

    /// Adds the metadata to a manifest being packed, with the hash of every entry besides the library.
    static func describe(_ manifest: inout JSONObject, _ metadata: PackageMetadata, entries: [Ustar.Entry]) {
        var m = metadata
        for entry in entries { m.files[entry.name] = SHA256.hex(entry.bytes) }
        for (key, value) in m.json { manifest[key] = value }
    }

    /// What `plugin pack`'s options put in the manifest (checked; a bad value is a usage error).
    static func metadata(author: String?, license: String?, homepage: String?, requires: String?, minHost: String?,
                         id: String) throws(CLIError) -> PackageMetadata {
        var m = PackageMetadata()
        if let problem = PackageMetadata.check(author: author, license: license, homepage: homepage) {
            // "\"author\" must …" → "--author must …": the option that set the field.
            var text = problem
            for field in ["author", "license", "homepage"] where text.hasPrefix("\"\(field)\"") { text = "--\(field)" + text.dropFirst(field.count + 2) }
            throw usage(text)
        }
        m.author = author
        m.license = license
        m.homepage = homepage
        if let requires {
            switch PackageRequirement.parseList(requires) {
            case .failure(let e): throw usage("--requires: \(e.message); write eg: --requires \"org.example.notes ^1.0; org.clubhouse.scorecard >=1.2.0 <2.0.0\"")
            case .success(let list):
                if list.contains(where: { $0.id == id }) { throw usage("--requires: \(id) cannot require itself") }
                m.requires = list
            }
        }
        if let minHost {
            guard let v = SemanticVersion(minHost) else { throw usage("--min-host '\(minHost)' is not a version, eg: 1.4.0") }
            m.minHostVersion = v
        } else {
            m.minHostVersion = SemanticVersion(ClubhouseVersion.string)
        }
        return m
    }

    // MARK: install

    /// The manifest's extra fields, the hash of every entry the manifest lists, and the signature
    /// (when there is one) of a package being installed or verified. The signature, or nil.
    static func checkContents(_ path: String, entries: [Ustar.Entry], manifestBytes: [UInt8], manifest: JSONValue,
                              libraryName: String) throws(CLIError) -> (PackageMetadata, PackageSignature?) {
        let metadata: PackageMetadata
        do { metadata = try PackageMetadata(manifest: manifest) } catch { throw CLIError(status: .error, message: "\(path): \(error.message)") }
        var signature: PackageSignature?
        if let entry = entries.first(where: { $0.name == PackageSignature.fileName }) {
            switch PackageSignature.parse(entry.bytes) {
            case .failure(let e): throw CLIError(status: .error, message: "\(path): \(e.message); nothing was installed")
            case .success(let s):
                let verdict = s.verify(manifest: manifestBytes)
                guard verdict == .valid else {
                    throw CLIError(status: .error, message: "\(path): the signature by key \(s.keyText) does not verify (\(verdict)); the package was changed after it was signed, or signed wrongly: get it again from its publisher")
                }
                signature = s
            }
        }
        for entry in entries where entry.name != PluginPackages.manifestName && entry.name != libraryName && entry.name != PackageSignature.fileName {
            guard let expected = metadata.files[entry.name] else {
                // A signature covers only what the manifest names: every entry must be named.
                if signature != nil { throw CLIError(status: .error, message: "\(path): '\(entry.name)' is not in the manifest's \"files\", so the signature does not cover it; repack the package") }
                continue
            }
            let actual = SHA256.hex(entry.bytes)
            guard actual == expected else {
                throw CLIError(status: .error, message: "\(path): '\(entry.name)' has SHA-256 \(actual) but the manifest says \(expected); the package was altered or damaged")
            }
        }
        return (metadata, signature)
    }

    /// Every plugin a package requires must be installed (or bundled with the host) in a version
    /// its range admits.
    static func checkRequirements(_ path: String, id: String, version: String, _ metadata: PackageMetadata, root: String) throws(CLIError) {
        guard !metadata.requires.isEmpty else { return }
        var bundled: [String: [SemanticVersion]]?
        for required in metadata.requires {
            var available = InstallTree.installed(id: required.id, root: root).map(\.version)
            if !available.contains(where: required.requirement.isSatisfied) {
                if bundled == nil { bundled = bundledVersions() }
                available += bundled?[required.id] ?? []
            }
            if available.contains(where: required.requirement.isSatisfied) { continue }
            let have = available.isEmpty ? "none is installed" : "installed: \(available.map(\.description).sorted().joined(separator: ", "))"
            throw CLIError(status: .error, message: "\(path): \(id) \(version) requires \(required.id) '\(required.requirement)' (\(have)); install a package of \(required.id) that matches first; nothing was installed")
        }
    }

    /// id → versions of the plugins that ship with the host (trusted: read in process, as discovery does).
    static func bundledVersions() -> [String: [SemanticVersion]] {
        var out: [String: [SemanticVersion]] = [:]
        let loader = PluginLoader()
        for dir in InstallTree.bundledDirectories {
            for file in FileSystem.files(in: dir, suffix: ".so") {
                if let library = try? loader.load(path: file) { out[library.info.id, default: []].append(library.info.semanticVersion) }
            }
        }
        return out
    }

    // MARK: verify

    static func verifyCommand(package given: String, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let path = FileSystem.absolute(given)
        let archive: [UInt8]
        do { archive = try FileSystem.read(path) } catch {
            throw CLIError(status: error.isMissing ? .invalidArgument : .error, message: "\(given): cannot read the package (\(error.reason))")
        }
        let package = try PluginPackages.verify(given, archive)
        let configuration = try options.loadConfiguration()
        let siteName = options.site ?? configuration.defaultSite
        let publishers = configuration.sites[siteName]?.publishers ?? configuration.publishers
        var json: JSONObject = ["package": .string(path), "id": .string(package.id), "version": .string(package.version),
                                "sha256": .string(package.sha256), "site": .string(siteName)]
        for (k, v) in package.metadata.json where k != "files" { json[k] = v }
        guard let signature = package.signature else {
            throw CLIError(status: .error, message: "\(given): \(package.id) \(package.version) is intact but not signed; sign it with clubhouse plugin pack LIBRARY --out PKG --sign KEY")
        }
        let trustedAs = publishers.first(where: { $0.value == signature.publicKey })?.key
        json["signed_by"] = .string(signature.keyText)
        json["fingerprint"] = .string(signature.fingerprint)
        json["trusted_as"] = trustedAs.map { .string($0) } ?? .null
        let trust = trustedAs.map { "site '\(siteName)' trusts it as publisher '\($0)'" }
            ?? "site '\(siteName)' does not list this key under \"publishers\"\(publishers.isEmpty ? " (it lists none)" : " (it lists \(publishers.keys.sorted().joined(separator: ", ")))")"
        BuiltinCommands.output(options, json: .object(json),
                               text: "\(path): \(package.id) \(package.version), every entry matches its manifest, signature valid: signed by \(signature.keyText) (fingerprint \(signature.fingerprint)); \(trust)\n")
        return 0
    }

    // MARK: list

    /// The publishers the site in use trusts (for plugin list --installed's SIGNER column).
    static func publishers(_ options: GlobalOptions) -> [String: [UInt8]] {
        guard let configuration = try? options.loadConfiguration() else { return [:] }
        return configuration.sites[options.site ?? configuration.defaultSite]?.publishers ?? configuration.publishers
    }

    static func signer(folder: String, library: String, root: String, publishers: [String: [UInt8]]) -> (text: String, key: String?) {
        guard case .success(let p)? = InstalledPackage.of(library: library, installRoot: root) else { return ("unsigned", nil) }
        let key: String?
        if case .success(let s)? = p.signature { key = s.keyText } else { key = nil }
        return (p.signer(trusting: publishers).text, key)
    }
}
