// Static files of `serve --http`: the host's own under /ui/_/ and each plugin's panel under /ui/<alias>/
// (issue 29's web app). A file is opened beneath its folder only (ConfinedOpen: no '..', no link leaving
// it), served with its type by extension, a strong ETag (SHA-256 of its bytes, computed once per file
// version), `Cache-Control: no-cache` (revalidate: a panel changes with its plugin) and the page policy
// (HTTPResponse.pagePolicy: self only, no inline script). A folder's URL ends with '/' and serves its
// index.html; without the slash it redirects there (so a page's relative imports resolve).

import ClubhouseHashing
import ClubhouseHost
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

/// @unchecked Sendable: `roots` never changes; `cache` is read and written under `lock`.
final class StaticFiles: @unchecked Sendable {
    /// Folder of each panel: "_" for the host's files, an alias for a plugin's.
    let roots: [String: String]
    /// Largest file served.
    static let largestFile = 16 << 20

    // Safe: `lock` guards the cache.
    private let lock = Lock()
    private var cache: [String: (key: FileKey, etag: String, bytes: [UInt8])] = [:]

    struct FileKey: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var modifiedNanoseconds: Int64
    }

    init(roots: [String: String]) {
        self.roots = roots
    }

    /// The folders of the site's panels: `uiDirectory/<alias>/` and `uiDirectory/_/` when given (serve
    /// --ui-dir); otherwise a plugin's `web/` folder beside its library when the library has its folder to
    /// itself (the install tree), else `web/<plugin id>/` beside it (the build's products folder), and the
    /// host's `web/_/` beside the clubhouse executable.
    static func roots(site: Site, runtime: SiteRuntime, uiDirectory: String?) -> [String: String] {
        var roots: [String: String] = [:]
        func folder(_ path: String) -> String? { FileSystem.isDirectory(path) ? path : nil }
        if let uiDirectory {
            roots["_"] = folder(uiDirectory + "/_")
        } else {
            roots["_"] = folder(FileSystem.executableDirectory() + "/web/_")
        }
        for entry in site.plugins where entry.enabled {
            if let uiDirectory {
                roots[entry.alias] = folder(uiDirectory + "/" + entry.alias)
                continue
            }
            guard case .success(let plugin) = runtime.resolve(entry.alias) else { continue }
            let libraryFolder = FileSystem.directoryName(plugin.path)
            let siblings = FileSystem.files(in: libraryFolder, suffix: ".so")
            roots[entry.alias] = siblings.count <= 1 ? folder(libraryFolder + "/web") : folder(libraryFolder + "/web/" + plugin.info.id)
        }
        return roots.compactMapValues { $0 }
    }

    /// Types by extension; anything else is application/octet-stream (and `nosniff` keeps it that way).
    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json; charset=utf-8", "map": "application/json; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "ico": "image/vnd.microsoft.icon", "txt": "text/plain; charset=utf-8",
        "woff2": "font/woff2", "woff": "font/woff", "wasm": "application/wasm", "gltf": "model/gltf+json",
        "glb": "model/gltf-binary", "bin": "application/octet-stream", "csv": "text/csv; charset=utf-8",
        "webmanifest": "application/manifest+json",
    ]

    static func type(of name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        return types[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }

    /// Serves `segments` (after /ui/) for GET or HEAD. `requestPath`: the path as requested, for the
    /// redirect of a folder without its '/'.
    func serve(segments: [String], trailingSlash: Bool, head: HTTPRequestHead, requestPath: String) -> HTTPResponse {
        guard let panel = segments.first else {
            return .error(404, "no panel named; the panels are under /ui/<plugin>/")
        }
        guard let root = roots[panel] else {
            return .error(404, panel == "_" ? "this host has no files of its own under /ui/_/" : "'\(panel)' has no panel at this site")
        }
        var relative = segments.dropFirst().joined(separator: "/")
        // Hidden files (.git, .env) are never served.
        if segments.dropFirst().contains(where: { $0.hasPrefix(".") }) {
            return .error(404, "no such file")
        }
        let folder = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return .error(404, "'\(panel)''s panel folder is missing") }
        defer { close(folder) }
        var fd: Int32 = -1
        if relative.isEmpty {
            relative = "index.html"
            if !trailingSlash {
                return HTTPResponse(status: 308, headers: [("Location", requestPath + "/"), ("Cache-Control", "no-cache")])
            }
        }
        switch ConfinedOpen.read(beneath: folder, relative) {
        case .success(let opened): fd = opened
        case .failure(.notFound): return .error(404, "no such file: /ui/\(segments.joined(separator: "/"))")
        case .failure(.escapes): return .error(404, "no such file: /ui/\(segments.joined(separator: "/"))")
        case .failure(.failed(let why)): return .error(500, "cannot read a file of '\(panel)''s panel: \(why)")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .error(500, "cannot read a file of '\(panel)''s panel") }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            if !trailingSlash { return HTTPResponse(status: 308, headers: [("Location", requestPath + "/"), ("Cache-Control", "no-cache")]) }
            return serve(segments: segments + ["index.html"], trailingSlash: false, head: head, requestPath: requestPath)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .error(404, "no such file") }
        guard st.st_size <= StaticFiles.largestFile else { return .error(500, "a panel file larger than 16 MiB is not served") }
        let key = FileKey(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
                          modified: Int64(st.st_mtim.tv_sec), modifiedNanoseconds: Int64(st.st_mtim.tv_nsec))
        let cacheKey = root + "/" + relative
        let entry: (etag: String, bytes: [UInt8])
        if let hit = lock.withLock({ cache[cacheKey] }), hit.key == key {
            entry = (hit.etag, hit.bytes)
        } else {
            guard let bytes = StaticFiles.readAll(fd, size: Int(st.st_size)) else {
                return .error(500, "cannot read a file of '\(panel)''s panel")
            }
            let etag = "\"" + String(SHA256.hash(bytes).description.prefix(32)) + "\""
            lock.withLock {
                if cache.count > 4096 { cache.removeAll() }
                cache[cacheKey] = (key, etag, bytes)
            }
            entry = (etag, bytes)
        }
        let name = relative.split(separator: "/").last.map(String.init) ?? relative
        var headers: [(name: String, value: String)] = [("ETag", entry.etag), ("Cache-Control", "no-cache"),
                                                        ("Content-Security-Policy", HTTPResponse.pagePolicy)]
        if StaticFiles.matches(head.header("if-none-match"), entry.etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        headers.insert(("Content-Type", StaticFiles.type(of: name)), at: 0)
        return HTTPResponse(status: 200, headers: headers, body: entry.bytes)
    }

    /// If-None-Match: `*` or a list of entity tags, compared weakly (RFC 9110 §13.1.2).
    static func matches(_ header: String?, _ etag: String) -> Bool {
        guard let header else { return false }
        let bare = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        for candidate in header.split(separator: ",") {
            var c = candidate.trimmingSpaces()
            if c == "*" { return true }
            if c.hasPrefix("W/") { c = String(c.dropFirst(2)) }
            if c == bare { return true }
        }
        return false
    }

    static func readAll(_ fd: Int32, size: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return pread(fd, base + done, size - done, off_t(done))
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            done += n
        }
        return done == size ? bytes : nil
    }
}

