// `clubhouse federation push`: ships what waits in a site's outboxes (Publish/Outbox.swift) to its
// federation, per plugin database in sequence order, in batches of `batch_records`. One psql for the whole
// push (PostgresSession: one connection, one backend), each batch one PostgreSQL transaction in it: COPY
// straight into the site's leaf of clubhouse.records; only when that fails, the staging way — COPY into a
// temporary table, one INSERT … SELECT, and only when rows are already there, INSERT … ON CONFLICT DO
// NOTHING and a check that no other host wrote different records under this site's sequence numbers (the
// key is (plugin, site, seq): a batch sent twice changes nothing, the same fact published again at a new
// sequence number is kept; send below). Only once psql says the transaction committed (the step's marker
// came back after COMMIT) are those records marked shipped in the outbox, and removed from it (one DELETE
// of the batch's sequence range); a failure anywhere (the server gone mid-batch, a refused record, psql
// killed) leaves them waiting, and the next push sends them again.

import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

public struct FederationPush {
    public let shell: PostgresShell
    public let federation: SiteFederation
    public let siteName: String
    /// `<data>/<site>`: the plugin databases and `_host/`.
    public let siteFolder: String

    public struct Report: Sendable {
        public var shipped = 0
        public var batches = 0
        /// Records shipped per plugin database (by plugin id).
        public var perPlugin: [(plugin: String, shipped: Int)] = []
        /// The psql processes the push started (one when all went well; a refused COPY starts another).
        public var psqlStarted = 0
    }

    public init(shell: PostgresShell, federation: SiteFederation, siteName: String, siteFolder: String) {
        self.shell = shell
        self.federation = federation
        self.siteName = siteName
        self.siteFolder = siteFolder
    }

    /// This data directory's identity as a federation host: `<site>/_host/federation-host-id`, made once.
    public func hostID() throws(FederationError) -> String {
        let path = siteFolder + "/_host/federation-host-id"
        if let bytes = try? FileSystem.read(path) {
            let text = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            if text.utf8.count == 32 && text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) { return text }
        }
        guard case .success(let random) = SecureRandom.bytes(16) else { throw FederationError("no random bytes for the federation host id") }
        let id = random.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        do {
            try FileSystem.createDirectory(siteFolder + "/_host")
            try FileSystem.writeAtomically(path, Array((id + "\n").utf8), permissions: 0o600)
        } catch {
            throw FederationError("\(path): cannot keep the federation host id (\(error)); is the data directory writable?")
        }
        return id
    }

    /// Claims the site id for this host, or says which host has it.
    func claim(_ host: String) throws(FederationError) {
        let id = FederationSchema.literal(federation.siteID)
        let rows = try shell.query("""
            UPDATE clubhouse.sites SET claimed_by = \(FederationSchema.literal(host)), claimed_at = now()
            WHERE site_id = \(id) AND (claimed_by IS NULL OR claimed_by = \(FederationSchema.literal(host))) RETURNING 1;
            """)
        if !rows.isEmpty { return }
        let holder = try shell.query("SELECT coalesce(claimed_by, ''), coalesce(claimed_at::text, '') FROM clubhouse.sites WHERE site_id = \(id)")
        guard let row = holder.first, row.count == 2 else {
            throw FederationError("site id '\(federation.siteID)' is not a site of the federation at \(shell.target.shown) (or its role may not claim it); its administrator adds it with clubhouse federation init --url … --site \(federation.siteID)", isRequestError: true)
        }
        throw FederationError("site id '\(federation.siteID)' is claimed by another host (\(row[0]), since \(row[1])); two hosts cannot publish as one site: give this site its own \"site_id\" in plugins.json", isRequestError: true)
    }

    /// The site's push lock, taken without waiting, or the one-line reason it is held.
    func exclusive() throws(FederationError) -> Int32 {
        let path = siteFolder + "/_host/federation-push.lock"
        do { try FileSystem.createDirectory(siteFolder + "/_host") } catch {
            throw FederationError("\(path): cannot create its folder (\(error)); is the data directory writable?")
        }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FederationError("\(path): cannot open the push lock (\(String(cString: strerror(errno))))") }
        var locked = flock(fd, LOCK_EX | LOCK_NB)
        while locked != 0 && errno == EINTR { locked = flock(fd, LOCK_EX | LOCK_NB) }
        if locked != 0 {
            close(fd)
            throw FederationError("another federation push of site '\(siteName)' is running (a second `federation push` or serve's background push); it ships what waits: run push again when it has finished to see nothing waits")
        }
        return fd
    }

    /// True when no outbox of the site holds a record (or none can be read: the push would say why).
    public func nothingWaits() -> Bool {
        for path in FileSystem.files(in: siteFolder, suffix: ".sqlite") {
            guard let outbox = try? OutboxFile(path: path, writable: false) else { return false }
            guard let counts = try? outbox.counts() else { return false }
            if counts.waiting > 0 { return false }
        }
        return true
    }

    /// Ships everything that waits. `progress` hears the records shipped so far. One push of a site at a
    /// time (`<site>/_host/federation-push.lock`, held while it runs): a second one, from the command line
    /// or serve's background push, says so instead of sending the same batches beside it. While psql sends one
    /// batch, the next is read from the outbox and written as psql's script on another thread (with a
    /// connection of its own), so the host's share of a push overlaps the server's. Batches still reach
    /// the server one at a time, in order, each marked shipped only after its commit.
    public func run(progress: (Int) -> Void = { _ in }) throws(FederationError) -> Report {
        let lock = try exclusive()
        defer { close(lock) }
        // One psql for the whole push: the preliminary query and every batch (PostgresSession).
        let session = shell.session()
        defer { session.finish() }
        let leaves: [String: String]
        do { leaves = try prepare(try hostID(), session) } catch where error.unreachable && !error.cancelled {
            // The server away, refusing the connection, or taking it and never answering (its timeouts).
            throw FederationError("federation push: \(error.message); nothing was shipped and every record waits in the outbox: push again once the server answers", unreachable: true)
        }
        var report = Report()
        let limit = federation.batchRecords, siteID = federation.siteID
        for path in FileSystem.files(in: siteFolder, suffix: ".sqlite") {
            let plugin = String(FileSystem.baseName(path).dropLast(".sqlite".count))
            let leaf = leaves[plugin] ?? leaves[""]
            let outbox: OutboxFile, reader: OutboxFile
            do {
                guard let opened = try OutboxFile(path: path, writable: true), let second = try OutboxFile(path: path, writable: false)
                else { continue }
                outbox = opened
                reader = second
            } catch {
                throw FederationError("\(error.message); nothing of it was shipped")
            }
            var shipped = 0
            var next = Batch.read(reader, after: 0, limit: limit, siteID: siteID, leaf: leaf)
            while case .success(let read) = next, let current = read {
                let following = Prefetch { Batch.read(reader, after: current.last, limit: limit, siteID: siteID, leaf: leaf) }
                do {
                    try send(current, outbox: outbox, session)
                    try mark(outbox, current)
                } catch {
                    _ = following.wait()
                    throw error
                }
                shipped += current.count
                report.shipped += current.count
                report.batches += 1
                progress(report.shipped)
                next = following.wait()
            }
            if case .failure(let error) = next { throw error }
            if shipped > 0 {
                report.perPlugin.append((plugin, shipped))
            }
        }
        report.psqlStarted = session.started
        return report
    }

    private func mark(_ outbox: OutboxFile, _ batch: Batch) throws(FederationError) {
        do {
            try outbox.markShipped(through: batch.last)
        } catch {
            // The federation has them; the next push sends them again and changes nothing there.
            throw FederationError("\(error.message) (the federation has these records: the next push resends them and changes nothing)")
        }
    }

    /// What a push does before its first batch, in one psql session: the schema version, the claim of the
    /// site id, the site's leaves. When any of it is not as it should be (or the session fails), the same
    /// steps run one by one (FederationSchema.checkVersion, claim, leafNames), each with its one-line reason.
    func prepare(_ host: String, _ session: PostgresSession) throws(FederationError) -> [String: String] {
        let id = FederationSchema.literal(federation.siteID), me = FederationSchema.literal(host)
        var answer: [[String]] = []
        do {
            answer = try session.query("""
            SELECT 'version', value FROM clubhouse.meta WHERE key = 'schema_version';
            UPDATE clubhouse.sites SET claimed_by = \(me), claimed_at = now()
            WHERE site_id = \(id) AND (claimed_by IS NULL OR claimed_by = \(me)) RETURNING 'claimed', site_id;
            SELECT 'leaf', plugin, relation FROM clubhouse.leaves WHERE site_id = \(id);
            """)
        } catch where error.unreachable {
            throw error  // the server away (or the push cancelled): said once, not asked again
        } catch {}
        if answer.first == ["version", String(FederationSchema.version)], answer.contains(where: { $0.first == "claimed" }) {
            return Self.leaves(answer.filter { $0.count == 3 && $0[0] == "leaf" }.map { Array($0.dropFirst()) })
        }
        try FederationSchema.checkVersion(shell)
        try claim(host)
        return try leafNames()
    }

    /// The site's leaf of clubhouse.records per plugin ('' for the DEFAULT partition's): where its push
    /// COPYs (schema 3). A name that is not a plain identifier is left out (that plugin takes the staging path).
    func leafNames() throws(FederationError) -> [String: String] {
        Self.leaves(try shell.query("SELECT plugin, relation FROM clubhouse.leaves WHERE site_id = \(FederationSchema.literal(federation.siteID))"))
    }

    static func leaves(_ rows: [[String]]) -> [String: String] {
        var leaves: [String: String] = [:]
        for row in rows where row.count == 2 && !row[1].isEmpty
            && row[1].utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }) {
            leaves[row[0]] = row[1]
        }
        return leaves
    }

    /// One batch read from an outbox: its sequence numbers and psql's script (the COPY into the site's
    /// leaf when it has one, else the staging script).
    struct Batch {
        var after: Int64
        var first: Int64
        var last: Int64
        var count: Int
        var plugin: String
        var script: [UInt8]
        /// True when `script` COPYs straight into the site's leaf.
        var direct: Bool

        /// The batch after `seq` (nil: nothing waits after it).
        static func read(_ outbox: OutboxFile, after seq: Int64, limit: Int, siteID: String, leaf: String?) -> Result<Batch?, FederationError> {
            do {
                guard let leaf else {
                    let records = try outbox.waiting(after: seq, limit: limit)
                    guard let first = records.first, let last = records.last else { return .success(nil) }
                    return .success(Batch(after: seq, first: first.seq, last: last.seq, count: records.count, plugin: first.plugin,
                                          script: FederationPush.script(records, siteID: siteID), direct: false))
                }
                var script = Array("BEGIN;\nCOPY clubhouse.\"\(leaf)\" (site_id, plugin, plugin_version, topic, key, seq, canonical, body, sha256, published_at) FROM STDIN;\n".utf8)
                script.reserveCapacity(limit * 512)
                guard let rows = try outbox.copyRows(after: seq, limit: limit, siteID: siteID, into: &script) else { return .success(nil) }
                script += Array("\\.\nCOMMIT;\n".utf8)
                return .success(Batch(after: seq, first: rows.first, last: rows.last, count: rows.count,
                                      plugin: FileSystem.baseName(outbox.path).replacing(".sqlite", with: ""), script: script, direct: true))
            } catch {
                return .failure(FederationError(error.message))
            }
        }
    }

    /// The next batch, read on a thread of its own while the current one is sent.
    /// @unchecked Sendable: `result` is written once, by that thread, before `done` is signalled, and read
    /// only after waiting on `done`.
    final class Prefetch: @unchecked Sendable {
        private var result: Result<Batch?, FederationError> = .success(nil)
        private let done = Semaphore()
        private var waited = false

        init(_ work: @escaping () -> Result<Batch?, FederationError>) {
            do throws(ThreadStartError) {
                try Thread.start { [self] in
                    result = work()
                    done.signal()
                }
            } catch {
                // No thread: read now, on this one (the batch is the same, only not read meanwhile).
                result = work()
                done.signal()
            }
        }

        func wait() -> Result<Batch?, FederationError> {
            if !waited {
                done.wait()
                waited = true
            }
            return result
        }
    }

    /// One batch, one transaction. The usual batch is new to the server and goes the fast way: one COPY
    /// straight into the site's leaf of clubhouse.records (its partition bound holds it to its own site id;
    /// the CHECKs bind the body to its text and hash, as for every insert), nothing else. When that fails
    /// for any reason but the connection (a row already there: a batch sent again, another push of this
    /// host racing this one; a refused record; no leaf for the plugin), the batch is read again and goes
    /// the staging way: COPY into a temporary table, one plain INSERT … SELECT through clubhouse.records
    /// (its row-level security), and only on a unique violation, in a subtransaction, INSERT … ON CONFLICT
    /// DO NOTHING and the check that each sequence number already there holds the same record (two hosts
    /// publishing as one site id would not). That path gives the one-line reason when the batch is refused.
    /// Measured in BENCHMARKS.md (Federation push).
    func send(_ batch: Batch, outbox: OutboxFile, _ session: PostgresSession) throws(FederationError) {
        let what = "records \(batch.first)–\(batch.last) of \(batch.plugin)"
        var failed: FederationError?
        do { try session.run(batch.script) } catch { failed = error }
        if let first = failed, batch.direct, !first.unreachable, !first.killed, !first.cancelled {
            let records: [OutboxRecord]
            do { records = try outbox.waiting(after: batch.after, limit: batch.count) } catch {
                throw FederationError("federation push: \(error.message); \(what) wait in the outbox")
            }
            failed = nil
            // The failed COPY ended that psql (ON_ERROR_STOP): the session starts another.
            do { try session.run(FederationPush.script(records, siteID: federation.siteID)) } catch { failed = error }
        }
        guard let error = failed else { return }
        // The COMMIT went and its reply did not: the server may hold the batch. It is not marked shipped; the
        // next push sends it again and the server keeps one copy (send's staging path, the hash the key).
        let unknown = error.commitUnknown ? " (kept unmarked: if the server did commit them, the next push finds them there and they are not doubled)" : ""
        if error.cancelled {
            var stopped = FederationError("federation push: \(error.message); \(what) and later ones wait in the outbox\(unknown)", unreachable: true, cancelled: true)
            stopped.commitUnknown = error.commitUnknown
            throw stopped
        }
        if error.killed {
            throw FederationError("federation push: \(error.message); \(what) and later ones wait in the outbox\(unknown): nothing is lost, run push again", unreachable: true, killed: true)
        }
        if error.unreachable {
            throw FederationError("federation push: \(error.message); \(what) and later ones wait in the outbox\(unknown) (push again when the server is back)", unreachable: true)
        }
        throw FederationError("federation push: the federation refused \(what) (\(error.message)); nothing of that batch was kept and they wait in the outbox")
    }

    /// The psql script of one batch (its COPY rows inline).
    static func script(_ records: [OutboxRecord], siteID: String) -> [UInt8] {
        var script: [UInt8] = []
        script.reserveCapacity(records.reduce(0) { $0 + $1.body.count + $1.key.utf8.count + 160 } + 4096)
        // temp_buffers before the session's first temporary table: a batch stays in memory.
        script += Array("""
            SET temp_buffers = '128MB';
            BEGIN;
            CREATE TEMPORARY TABLE incoming (plugin text, plugin_version text, topic text, key text, seq bigint,
                canonical text, sha256 text, published_at timestamptz) ON COMMIT DROP;
            COPY incoming FROM STDIN;

            """.utf8)
        for r in records {
            CopyText.field(r.plugin.utf8, &script)
            CopyText.field(r.pluginVersion.utf8, &script)
            CopyText.field(r.topic.utf8, &script)
            CopyText.field(r.key.utf8, &script)
            script += String(r.seq).utf8
            script.append(0x09)
            CopyText.field(r.body, &script)
            CopyText.field(r.sha256.utf8, &script)
            CopyText.field(r.publishedAt.utf8, &script, last: true)
        }
        let id = FederationSchema.literal(siteID)
        let insert = """
            INSERT INTO clubhouse.records (site_id, plugin, plugin_version, topic, key, seq, canonical, body, sha256, published_at)
                  SELECT \(id), plugin, plugin_version, topic, key, seq, canonical, canonical::jsonb, sha256, published_at FROM incoming
            """
        script += Array("""
            \\.
            DO $$ DECLARE clash record; BEGIN
              BEGIN
                \(insert);
              EXCEPTION WHEN unique_violation THEN
                \(insert)
                  ON CONFLICT DO NOTHING;
                SELECT i.plugin, i.seq INTO clash FROM incoming i JOIN clubhouse.records r
                  ON r.plugin = i.plugin AND r.site_id = \(id) AND r.seq = i.seq WHERE r.sha256 <> i.sha256 OR r.key <> i.key LIMIT 1;
                IF FOUND THEN
                  RAISE EXCEPTION 'site id ''%'' already has a different record % of plugin % (two hosts publish as this site id, or this data directory was restored from an older copy? give each host its own site_id)', \(id), clash.seq, clash.plugin;
                END IF;
              END;
            END $$;
            COMMIT;

            """.utf8)
        return script
    }
}

/// PostgreSQL's COPY text format.
public enum CopyText {
    /// One COPY text field (backslash, tab, newline and carriage return escaped), then a tab (a newline
    /// after the `last` field of a row). Runs without those bytes are copied whole.
    public static func field<Bytes: Collection>(_ bytes: Bytes, _ out: inout [UInt8], last: Bool = false) where Bytes.Element == UInt8 {
        let copied: Bool? = bytes.withContiguousStorageIfAvailable { buffer -> Bool in
            var start = 0
            for i in 0..<buffer.count {
                let escaped: UInt8
                switch buffer[i] {
                case 0x5C: escaped = 0x5C
                case 0x09: escaped = 0x74
                case 0x0A: escaped = 0x6E
                case 0x0D: escaped = 0x72
                default: continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<i]))
                out.append(0x5C)
                out.append(escaped)
                start = i + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
            return true
        }
        if copied == nil {
            for b in bytes {
                switch b {
                case 0x5C: out += [0x5C, 0x5C]
                case 0x09: out += [0x5C, 0x74]
                case 0x0A: out += [0x5C, 0x6E]
                case 0x0D: out += [0x5C, 0x72]
                default: out.append(b)
                }
            }
        }
        out.append(last ? 0x0A : 0x09)
    }
}

extension FederationPush {
    /// The staging script of a batch (the push's fallback path): the benchmark drives it as a peer.
    public static func stagingScriptForBenchmark(_ records: [OutboxRecord], siteID: String) -> [UInt8] {
        script(records, siteID: siteID)
    }
}
