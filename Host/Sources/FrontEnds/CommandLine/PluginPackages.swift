// Plugin packages: `plugin pack` writes one ustar file (manifest.json + the library + optional
// README.md + an optional panel, web/<file> for each file of the plugin's web/ folder + optional central
// SQL, federation/postgresql/NNN_name.sql, issue 34); `plugin install` verifies one and installs it into the install tree
// (<data home>/plugins/<id>/<version>/) atomically; `plugin list --installed`; `plugin remove`.
// The library's descriptor is always read in a throwaway child process (`__probe`), never in
// the host: a package is untrusted input.

import ClubhouseHost
import ClubhousePlatform
import ClubhouseABI
import ClubhouseHashing
import ClubhouseJSON
import CClubhouse
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

enum PluginPackages {
    static let manifestName = "manifest.json"
    static let formatVersion = 1

    struct Probe { var id, version, name, summary, abi, build: String }

    static func failure(_ message: String) -> CLIError { CLIError(status: .error, message: message) }

    /// A file the user named could not be read: a path that names nothing is theirs to fix (exit 2).
    static func failure(_ message: String, _ error: FileError) -> CLIError {
        CLIError(status: error.isMissing ? .invalidArgument : .error, message: message)
    }

    /// Reads a library's descriptor in a child process.
    static func probe(_ path: String) -> Result<Probe, CLIError> {
        let result = Subprocess.run(FileSystem.hostExecutable(), ["__probe", path],
                                    environment: ["SWIFT_BACKTRACE": "enable=no"], timeoutMilliseconds: 30_000)
        guard result.exitCode == 0, let v = try? JSONParser.parse(bytes: result.standardOutput),
              let id = v["id"]?.stringValue, let version = v["version"]?.stringValue else {
            let why = String(decoding: result.standardError, as: UTF8.self).split(separator: "\n").last.map(String.init)
                ?? result.outcomeDescription
            return .failure(failure("\(path): not a loadable plugin (\(why))"))
        }
        return .success(Probe(id: id, version: version, name: v["name"]?.stringValue ?? id, summary: v["summary"]?.stringValue ?? "",
                              abi: v["abi"]?.stringValue ?? "", build: v["build"]?.stringValue ?? ""))
    }

    // MARK: pack

    static func pack(library given: String, out: String, readme: String?, web: String? = nil, federation: String? = nil,
                     publisher: PackageSigning.PackOptions = .init(), _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let seed = try publisher.sign.map(PackageSigning.signingKey)
        let library = FileSystem.absolute(given)
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(library) } catch { throw failure("\(given): cannot read the library (\(error.reason))", error) }
        let info: Probe
        switch probe(library) {
        case .success(let p): info = p
        case .failure(let e): throw e
        }
        guard InstallTree.isSafeComponent(info.id), SemanticVersion(info.version) != nil else {
            throw failure("\(given): id '\(info.id)' or version '\(info.version)' cannot name an install folder; fix the descriptor")
        }
        try PackageValidation.check(library: library, given: given, manifest: nil, action: .pack)
        // The library keeps its file name when that is a plain ustar name; otherwise it is plugin.so.
        let base = FileSystem.baseName(library)
        let plain = base.hasSuffix(".so") && !base.hasPrefix(".") && base.utf8.count <= 100 && (try? Ustar.checkName(base)) != nil
        let libraryName = plain ? base : "plugin.so"
        let metadata = try publisher.metadata(id: info.id)
        var entries: [Ustar.Entry] = []
        var manifest: JSONObject = [
            "format": .int(formatVersion), "id": .string(info.id), "version": .string(info.version), "name": .string(info.name),
            "summary": .string(info.summary), "abi": .string(info.abi), "build": .string(info.build),
            "library": .string(libraryName), "sha256": .string(SHA256.hex(bytes)),
            "min_host_version": .string(ClubhouseVersion.string),
        ]
        if let readme {
            do { entries.append(Ustar.Entry(name: "README.md", bytes: try FileSystem.read(FileSystem.absolute(readme)))) }
            catch { throw failure("\(readme): cannot read the README (\(error.reason))", error) }
            manifest["readme"] = "README.md"
        }
        if let web {
            var files: JSONObject = [:]
            for (name, data) in try panelFiles(web) {
                entries.append(Ustar.Entry(name: "web/" + name, bytes: data))
                files[name] = .string(SHA256.hex(data))
            }
            manifest["web"] = .object(files)
        }
        if let federation {
            var files: JSONObject = [:]
            for (name, data) in try federationFiles(federation) {
                entries.append(Ustar.Entry(name: federationFolder + "/" + name, bytes: data))
                files[name] = .string(SHA256.hex(data))
            }
            manifest["federation"] = .object(files)
        }
        PackageSigning.describe(&manifest, metadata, entries: entries)
        let manifestBytes = Array((JSONWriter.pretty(.object(manifest)) + "\n").utf8)
        entries.insert(Ustar.Entry(name: manifestName, bytes: manifestBytes), at: 0)
        entries.insert(Ustar.Entry(name: libraryName, bytes: bytes, mode: 0o755), at: 1)
        if let seed { entries.append(Ustar.Entry(name: PackageSignature.fileName, bytes: PackageSignature.sign(manifest: manifestBytes, seed: seed))) }
        let target = FileSystem.absolute(out)
        do { try FileSystem.writeAtomically(target, Ustar.write(entries)) }
        catch { throw failure("\(out): cannot write the package (\(error.reason))") }
        let signer = seed.map { Ed25519.publicKeyText(Ed25519.publicKey(seed: $0)) }
        BuiltinCommands.output(options, json: ["out": .string(target), "manifest": .object(manifest), "signed_by": signer.map { .string($0) } ?? .null],
                               text: "Packed \(info.id) \(info.version) into \(target) (sha256 \(SHA256.hex(bytes)))\(signer.map { ", signed by \($0)" } ?? "")\n")
        return 0
    }

    // MARK: install

    struct Package {
        var id, version, libraryName, sha256: String
        var manifest: JSONValue
        var entries: [Ustar.Entry]
        var metadata = PackageMetadata()
        var signature: PackageSignature?
    }

    /// Checks a package's archive and manifest (everything but loading the library).
    static func verify(_ path: String, _ archive: [UInt8]) throws(CLIError) -> Package {
        let entries: [Ustar.Entry]
        do { entries = try Ustar.read(archive) } catch { throw failure("\(path): \(error.message); nothing was installed") }
        guard let manifestEntry = entries.first(where: { $0.name == manifestName }) else {
            throw failure("\(path): the package has no \(manifestName); make it with clubhouse plugin pack")
        }
        guard let manifest = try? JSONParser.parse(bytes: manifestEntry.bytes), manifest.objectValue != nil else {
            throw failure("\(path): \(manifestName) is not a JSON object; make the package with clubhouse plugin pack")
        }
        func field(_ name: String) throws(CLIError) -> String {
            guard let v = manifest[name]?.stringValue, !v.isEmpty else { throw failure("\(path): \(manifestName) lacks \"\(name)\"") }
            return v
        }
        let id = try field("id"), version = try field("version"), libraryName = try field("library"), sha = try field("sha256")
        guard manifest["format"]?.intValue == formatVersion else {
            throw failure("\(path): package format \(manifest["format"].map(JSONWriter.compact) ?? "none") is not \(formatVersion); repack it with this clubhouse")
        }
        guard InstallTree.isSafeComponent(id), SemanticVersion(version) != nil else {
            throw failure("\(path): manifest id '\(id)' or version '\(version)' cannot name an install folder")
        }
        if let abi = manifest["abi"]?.stringValue, let major = abi.split(separator: ".").first.flatMap({ Int($0) }),
           major != Int(CLUBHOUSE_ABI_MAJOR) {
            throw failure("\(path): built for plugin ABI \(abi) but this host speaks ABI \(CLUBHOUSE_ABI_MAJOR).x")
        }
        if let minimum = manifest["min_host_version"]?.stringValue {
            guard let needed = SemanticVersion(minimum), let have = SemanticVersion(ClubhouseVersion.string) else {
                throw failure("\(path): min_host_version '\(minimum)' is not a version")
            }
            if have < needed { throw failure("\(path): needs clubhouse \(minimum) or newer; this is \(ClubhouseVersion.string)") }
        }
        guard let library = entries.first(where: { $0.name == libraryName }), libraryName.hasSuffix(".so"), !libraryName.hasPrefix(".") else {
            throw failure("\(path): the library '\(libraryName)' named by the manifest is not in the package")
        }
        let actual = SHA256.hex(library.bytes)
        guard actual == sha.lowercased() else {
            throw failure("\(path): the library's SHA-256 is \(actual) but the manifest says \(sha); the package was altered or damaged")
        }
        // The panel: each web/<file> the manifest lists, with its SHA-256.
        var allowed: Set<String> = [manifestName, libraryName, "README.md", PackageSignature.fileName]
        for (name, value) in manifest["web"]?.objectValue ?? [:] {
            guard InstallTree.isSafeComponent(name), let expected = value.stringValue else {
                throw failure("\(path): the manifest's web file '\(name)' cannot be installed; repack the plugin")
            }
            guard let entry = entries.first(where: { $0.name == "web/" + name }) else {
                throw failure("\(path): the panel file web/\(name) named by the manifest is not in the package")
            }
            guard SHA256.hex(entry.bytes) == expected.lowercased() else {
                throw failure("\(path): web/\(name)'s SHA-256 is not the manifest's; the package was altered or damaged")
            }
            allowed.insert("web/" + name)
        }
        // The central SQL: each federation/postgresql/<file> the manifest lists, with its SHA-256, numbered
        // 1, 2, 3, … (`federation migrate` applies them in that order once installed).
        let federation = manifest["federation"]?.objectValue ?? [:]
        if let problem = FederationMigrations.orderProblem(Array(federation.keys), where: "\(path): \(federationFolder)/") {
            throw failure(problem + " and pack the plugin again; nothing was installed")
        }
        for (name, value) in federation {
            guard let expected = value.stringValue, let entry = entries.first(where: { $0.name == federationFolder + "/" + name }) else {
                throw failure("\(path): the central SQL file \(federationFolder)/\(name) named by the manifest is not in the package; pack the plugin again")
            }
            guard SHA256.hex(entry.bytes) == expected.lowercased() else {
                throw failure("\(path): \(federationFolder)/\(name)'s SHA-256 is not the manifest's; the package was altered or damaged")
            }
            if let problem = MigrationText.problem(in: entry.bytes, where: "\(path): \(federationFolder)/\(name)") {
                throw failure(problem + "; nothing was installed: ask its publisher for a package without it")
            }
            allowed.insert(entry.name)
        }
        if let extra = entries.first(where: { !allowed.contains($0.name) }) {
            throw failure("\(path): unexpected entry '\(extra.name)'; a package holds \(manifestName), the library, README.md, \(PackageSignature.fileName), the panel's web/ files and the central SQL the manifest lists (\(federationFolder)/)")
        }
        let (metadata, signature) = try PackageSigning.checkContents(path, entries: entries, manifestBytes: manifestEntry.bytes, manifest: manifest,
                                                                     libraryName: libraryName)
        return Package(id: id, version: version, libraryName: libraryName, sha256: actual, manifest: manifest, entries: entries,
                       metadata: metadata, signature: signature)
    }

    /// A panel folder's files (issue 29: served under /ui/<alias>/ once installed): flat, regular, not hidden.
    static func panelFiles(_ given: String) throws(CLIError) -> [(name: String, bytes: [UInt8])] {
        let folder = FileSystem.absolute(given)
        guard FileSystem.isDirectory(folder) else { throw failure("\(given): not a folder; --web names the plugin's panel folder (web/)") }
        var files: [(name: String, bytes: [UInt8])] = []
        for path in FileSystem.files(in: folder, suffix: "") {
            let name = FileSystem.baseName(path)
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
                throw failure("\(given)/\(name): a panel's folder holds plain files only (no subfolder or link)")
            }
            guard InstallTree.isSafeComponent(name), (try? Ustar.checkName("web/" + name)) != nil else {
                throw failure("\(given)/\(name): this file name cannot travel in a package; rename it")
            }
            do { files.append((name, try FileSystem.read(path))) } catch { throw failure("\(given)/\(name): cannot read (\(error.reason))") }
        }
        return files
    }

    /// Where a package carries (and an installed plugin keeps) its central SQL: beside the library, where
    /// `federation migrate` looks (FederationMigrations.installedFolder).
    static let federationFolder = "federation/postgresql"

    /// A plugin's central SQL folder (`--federation`): its NNN_name.sql files, numbered 1, 2, 3, … (a file
    /// named otherwise, a gap, a number twice: one line naming the file).
    static func federationFiles(_ given: String) throws(CLIError) -> [(name: String, bytes: [UInt8])] {
        let folder = FileSystem.absolute(given)
        guard FileSystem.isDirectory(folder) else {
            throw CLIError(status: .invalidArgument, message: "\(given): not a folder; --federation names the plugin's central SQL folder (federation/postgresql/)")
        }
        let paths = FileSystem.files(in: folder, suffix: "")
        if let problem = FederationMigrations.orderProblem(paths.map(FileSystem.baseName), where: given + "/") {
            throw CLIError(status: .invalidArgument, message: problem)
        }
        var files: [(name: String, bytes: [UInt8])] = []
        for path in paths {
            let name = FileSystem.baseName(path)
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
                throw CLIError(status: .invalidArgument, message: "\(given)/\(name): a central SQL folder holds plain files only (no subfolder or link)")
            }
            let bytes: [UInt8]
            do { bytes = try FileSystem.read(path) } catch { throw failure("\(given)/\(name): cannot read (\(error.reason))") }
            // SQL only: no psql meta-command, no transaction control (FederationMigrations runs it in the host's transaction).
            if let problem = MigrationText.problem(in: bytes, where: "\(given)/\(name)") {
                throw CLIError(status: .invalidArgument, message: problem + "; nothing was packed")
            }
            files.append((name, bytes))
        }
        return files
    }

    static func installTree(_ options: GlobalOptions) throws(CLIError) -> String {
        InstallTree.root(dataDirectory: options.resolveDataDirectory(try options.loadConfiguration()))
    }

    static func install(file given: String, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let path = FileSystem.absolute(given)
        let archive: [UInt8]
        do { archive = try FileSystem.read(path) } catch { throw failure("\(given): cannot read the package (\(error.reason))", error) }
        let package = try verify(given, archive)
        let root = try installTree(options)
        try PackageSigning.checkRequirements(given, id: package.id, version: package.version, package.metadata, root: root)
        let idFolder = "\(root)/\(package.id)"
        let target = "\(idFolder)/\(package.version)"
        if FileSystem.exists(target) {
            guard identical(target, package) else {
                throw failure("\(given): \(package.id) \(package.version) is already installed from a different build (\(target)); remove it first (clubhouse plugin remove \(package.id)@\(package.version)) or give the new build a new version")
            }
            BuiltinCommands.output(options, json: ["id": .string(package.id), "version": .string(package.version), "path": .string(target), "status": "already installed"],
                                   text: "\(package.id) \(package.version) is already installed (identical) at \(target)\n")
            return 0
        }
        do { try FileSystem.createDirectory(idFolder) } catch { throw failure("\(idFolder): cannot create the install folder (\(error.reason))") }
        // Extract beside the target, check the copy, then rename: a reader sees all of it or none.
        let temporary = "\(idFolder)/.install-\(package.version)-\(getpid())"
        removeTree(temporary)
        guard mkdir(temporary, 0o755) == 0 else {
            throw failure("\(temporary): cannot create (\(String(cString: strerror(errno)))); nothing was installed")
        }
        do throws(CLIError) {
            for folder in ["web", "federation", federationFolder] where package.entries.contains(where: { $0.name.hasPrefix(folder + "/") }) {
                if mkdir("\(temporary)/\(folder)", 0o755) != 0 {
                    throw failure("\(temporary)/\(folder): cannot create (\(String(cString: strerror(errno)))); nothing was installed")
                }
            }
            for entry in package.entries {
                if let reason = writeDurably("\(temporary)/\(entry.name)", entry.bytes, mode: entry.name == package.libraryName ? 0o755 : 0o644) {
                    throw failure("\(temporary)/\(entry.name): cannot write (\(reason)); nothing was installed")
                }
            }
            let probed: Probe
            switch probe("\(temporary)/\(package.libraryName)") {
            case .success(let p): probed = p
            case .failure(let e): throw failure("\(given): the library does not load (\(e.message)); nothing was installed")
            }
            guard probed.id == package.id, probed.version == package.version else {
                throw failure("\(given): the manifest says \(package.id) \(package.version) but the library's descriptor says \(probed.id) \(probed.version); nothing was installed")
            }
            try PackageValidation.check(library: "\(temporary)/\(package.libraryName)", given: given, manifest: package.manifest, action: .install)
            syncDirectory(temporary)
            guard rename(temporary, target) == 0 else {
                let reason = String(cString: strerror(errno))
                // Another install of the same version finished first: fine when it is this package.
                if identical(target, package) {
                    removeTree(temporary)
                    BuiltinCommands.output(options, json: ["id": .string(package.id), "version": .string(package.version), "path": .string(target), "status": "already installed"],
                                           text: "\(package.id) \(package.version) is already installed (identical) at \(target)\n")
                    return 0
                }
                throw failure("\(target): cannot install (\(reason)); nothing was installed")
            }
            syncDirectory(idFolder)
        } catch {
            removeTree(temporary)
            rmdir(idFolder)  // only when empty: a failed first install leaves no trace
            throw error
        }
        BuiltinCommands.output(options, json: ["id": .string(package.id), "version": .string(package.version), "path": .string(target), "status": "installed"],
                               text: "Installed \(package.id) \(package.version) into \(target)\n")
        return 0
    }

    /// Whether the installed folder holds exactly the package's files, byte for byte.
    static func identical(_ folder: String, _ package: Package) -> Bool {
        let files = FileSystem.files(in: folder, suffix: "").filter { !["web", "federation"].contains(FileSystem.baseName($0)) }.map { ($0, FileSystem.baseName($0)) }
            + FileSystem.files(in: folder + "/web", suffix: "").map { ($0, "web/" + FileSystem.baseName($0)) }
            + FileSystem.files(in: folder + "/" + federationFolder, suffix: "").map { ($0, federationFolder + "/" + FileSystem.baseName($0)) }
        return files.count == package.entries.count && files.allSatisfy { file, name in
            package.entries.contains { $0.name == name && (try? FileSystem.read(file)) == $0.bytes }
        }
    }

    // MARK: list, remove

    static func listInstalled(_ options: GlobalOptions) throws(CLIError) -> Int32 {
        let root = try installTree(options)
        var rows: [JSONValue] = []
        var table: [[String]] = [["ID", "VERSION", "SHA256", "SIGNER", "PATH"]]
        let publishers = PackageSigning.publishers(options)
        for id in InstallTree.subdirectories(root) {
            for (version, library) in InstallTree.installed(id: id, root: root).reversed() {
                let folder = FileSystem.directoryName(library)
                let manifest = (try? FileSystem.read(folder + "/" + manifestName)).flatMap { try? JSONParser.parse(bytes: $0) }
                let sha = manifest?["sha256"]?.stringValue ?? "?"
                let signer = PackageSigning.signer(folder: folder, library: library, root: root, publishers: publishers)
                rows.append(["id": .string(id), "version": .string(version.description), "sha256": .string(sha),
                             "name": .string(manifest?["name"]?.stringValue ?? id), "path": .string(folder),
                             "signer": .string(signer.text), "signed_by": signer.key.map { .string($0) } ?? .null])
                table.append([id, version.description, String(sha.prefix(12)), signer.text, folder])
            }
        }
        let text = rows.isEmpty ? "No plugins installed in \(root) (install one with clubhouse plugin install FILE.chpkg)\n"
            : BuiltinCommands.formatTable(table, styled: options.stylesOutput())
        BuiltinCommands.output(options, json: ["root": .string(root), "installed": .array(rows)], text: text)
        return 0
    }

    static func remove(_ spec: String, force: Bool, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let parts = spec.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let id = parts[0]
        let version = parts.count == 2 ? parts[1] : nil
        guard InstallTree.isSafeComponent(id), version.map(InstallTree.isSafeComponent) ?? true else {
            throw CLIError(status: .invalidArgument, message: "'\(spec)' is not ID or ID@VERSION")
        }
        let root = try installTree(options)
        let folder = version.map { "\(root)/\(id)/\($0)" } ?? "\(root)/\(id)"
        guard FileSystem.isDirectory(folder) else {
            throw CLIError(status: .notFound, message: "\(spec) is not installed in \(root) (clubhouse plugin list --installed shows what is)")
        }
        let broken = try LockCommand.refuseRemovingPinned(id: id, version: version, installed: version.map { [$0] } ?? InstallTree.subdirectories(folder),
                                                          spec: spec, force: force, options)
        // Renamed aside first, so a concurrent reader sees the version whole or not at all.
        let parent = FileSystem.directoryName(folder)
        let aside = "\(parent)/.remove-\(FileSystem.baseName(folder))-\(getpid())"
        guard rename(folder, aside) == 0 else {
            throw failure("\(folder): cannot remove (\(String(cString: strerror(errno))))")
        }
        removeTree(aside)
        if version != nil, InstallTree.subdirectories("\(root)/\(id)").isEmpty { removeTree("\(root)/\(id)") }
        for warning in broken { StandardStreams.writeError("clubhouse: warning: removed with --force: \(warning)\n") }
        BuiltinCommands.output(options, json: ["removed": .string(spec), "path": .string(folder), "forced_past": .array(broken.map { .string($0) })],
                               text: "Removed \(spec) (\(folder))\n")
        return 0
    }

    // MARK: files

    /// Writes and fsyncs a new file; nil or the reason it failed.
    static func writeDurably(_ path: String, _ bytes: [UInt8], mode: mode_t) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        if let reason = Descriptor.writeAll(fd, bytes) { return reason }
        return fsync(fd) == 0 ? nil : String(cString: strerror(errno))
    }

    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
    }

    /// Removes a folder and everything in it (symbolic links are removed, never followed).
    static func removeTree(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            if let dir = opendir(path) {
                var names: [String] = []
                while let entry = readdir(dir) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                    if name != "." && name != ".." { names.append(name) }
                }
                closedir(dir)
                for name in names { removeTree(path + "/" + name) }
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
