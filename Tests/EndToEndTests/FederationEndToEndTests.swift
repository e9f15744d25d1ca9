// Three Clubhouse sites and one PostgreSQL (a cluster of the test's own, PostgresCluster.swift, shared
// by the tests of this class, each test in its own database): the outbox shipped by `federation push`
// through psql, idempotently and across the server going away mid-push; rounds at two clubs giving one
// golfer one index of record (computed in SQL, checked against the plugin's Swift) that both clubs show
// after `federation pull`; and the faults — a wrong password, a schema newer than the host, a record
// the server refuses, two hosts claiming one site id, a site writing another's records — one line each.

import ClubhouseJSON
import CSQLite
import ScorecardCore
import Foundation
import XCTest

final class FederationEndToEndTests: XCTestCase {
    nonisolated(unsafe) static var cluster: PostgresCluster?
    nonisolated(unsafe) static var problem: String?
    nonisolated(unsafe) static var skip: String?

    override class func setUp() {
        super.setUp()
        do {
            cluster = try PostgresCluster()
        } catch let error as XCTSkip {
            skip = "\(error.message ?? "PostgreSQL is not installed")"
        } catch {
            problem = "\(error)"
        }
    }

    override class func tearDown() {
        cluster?.destroy()
        cluster = nil
        super.tearDown()
    }

    func requireCluster() throws -> PostgresCluster {
        if let problem = Self.problem { XCTFail("the test's PostgreSQL cluster did not start: \(problem)") }
        guard let cluster = Self.cluster else { throw XCTSkip(Self.skip ?? Self.problem ?? "no PostgreSQL cluster") }
        if !cluster.running { try cluster.start() }
        return cluster
    }

    /// A fresh database with the clubhouse schema and three site roles (passwords in a .pgpass).
    func federation(_ c: Clubhouse, _ cluster: PostgresCluster, sites: [String] = ["club-a", "club-b", "club-c"],
                            wrongPasswordFor: String? = nil, before: String? = nil) throws -> String {
        let db = "fed_" + UUID().uuidString.prefix(8).lowercased()
        try cluster.sql("CREATE DATABASE \(db)")
        if let before { try cluster.sql(before, database: db) }
        try c.succeed(["federation", "init", "--url", cluster.adminURL(db), "--sites", sites.joined(separator: ",")])
        var pgpass = ""
        for site in sites {
            let role = "clubhouse_site_" + site.replacingOccurrences(of: "-", with: "_")
            try cluster.sql("ALTER ROLE \(role) PASSWORD 'pw-\(site)'")
            pgpass += "127.0.0.1:\(cluster.port):\(db):\(role):\(site == wrongPasswordFor ? "wrong" : "pw-\(site)")\n"
        }
        let file = try c.write("pgpass", pgpass)
        chmod(file, 0o600)
        c.environment["PGPASSFILE"] = file
        return db
    }

    /// plugins.json: each site with the scorecard and the outbox fixture, and its federation block.
    func configuration(_ c: Clubhouse, _ cluster: PostgresCluster, db: String, sites: [String] = ["club-a", "club-b", "club-c"],
                               batch: Int = 10_000, extra: String = "") throws -> String {
        let fixture = try FixturePlugins.build("PUBLISH", id: "org.tests.publish.a", file: "hostile_publish.c")
        let scorecard = Clubhouse.productsDirectory.appendingPathComponent("libScorecardPlugin.so").path
        let blocks = sites.map { site -> String in
            let role = "clubhouse_site_" + site.replacingOccurrences(of: "-", with: "_")
            return """
                "\(site)": {"federation": {"url": "\(cluster.url(role: role, database: db))", "site_id": "\(site)", "batch_records": \(batch)\(extra)},
                  "plugins": {"scorecard": {"path": "\(scorecard)", "grants": ["storage"]},
                              "hp": {"path": "\(fixture)", "grants": ["storage"]}}}
                """
        }
        return try c.write("federation-\(db).json", "{\"sites\": {" + blocks.joined(separator: ",\n") + "}}")
    }

    func records(_ cluster: PostgresCluster, _ db: String, where condition: String = "true") throws -> Int {
        Int(try cluster.sql("SELECT count(*) FROM clubhouse.records WHERE \(condition)", database: db)) ?? -1
    }

    // MARK: the done-when test

    func testRoundsAtTwoClubsGiveOneGolferOneIndexOfRecordBothClubsShow() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster)
        let config = try configuration(c, cluster, db: db)
        try c.succeed(["federation", "migrate", "--url", cluster.adminURL(db), "--plugin", "org.clubhouse.scorecard",
                       "--dir", Clubhouse.repositoryRoot.appendingPathComponent("Plugins/Scorecard/federation/postgresql").path])
        let course = try c.write("nine.json", """
            {"name": "Test Nine", "tees": [{"name": "Red", "rating": 34.1, "slope": 118, "holes": [
              {"par": 4, "strokeIndex": 1}, {"par": 3, "strokeIndex": 5}, {"par": 5, "strokeIndex": 3},
              {"par": 4, "strokeIndex": 2}, {"par": 4, "strokeIndex": 8}, {"par": 3, "strokeIndex": 9},
              {"par": 4, "strokeIndex": 4}, {"par": 4, "strokeIndex": 6}, {"par": 4, "strokeIndex": 7}]}]}
            """)
        let pars = [4, 3, 5, 4, 4, 3, 4, 4, 4]
        var differentials: [String] = []
        // Ann (member M-1001, given index 20.0) plays two rounds at club-a and one at club-b.
        for (site, overs) in [("club-a", [1, 2]), ("club-b", [0])] {
            try c.succeed(["--config", config, "--site", site, "scorecard", "player", "add", "Ann", "--index", "20.0", "--member", "M-1001"])
            try c.succeed(["--config", config, "--site", site, "scorecard", "course", "add", course])
            for (n, over) in overs.enumerated() {
                try c.succeed(["--config", config, "--site", site, "scorecard", "round", "start", "--course", "1", "--tee", "Red",
                               "--players", "Ann", "--date", "2026-05-0\(n + 1)", "--holes", "9"])
                for (h, par) in pars.enumerated() {
                    try c.succeed(["--config", config, "--site", site, "scorecard", "score", "--round", "\(n + 1)", "--player", "Ann",
                                   "--hole", "\(h + 1)", "--strokes", "\(par + (h < 4 ? over : 1))"])
                }
                let finished = try c.succeed(["--config", config, "--site", site, "scorecard", "round", "finish", "\(n + 1)", "--yes", "--json"]).json()
                differentials.append(JSONWriter.compact(finished["players"]?.arrayValue?.first?["differential"] ?? .null))
            }
        }
        try c.succeed(["--config", config, "--site", "club-c", "scorecard", "player", "add", "Ann", "--member", "M-1001"])
        let waiting = try c.succeed(["--config", config, "--site", "club-a", "outbox", "--json"]).json()
        XCTAssertEqual(waiting["waiting"]?.intValue, 2 * (9 + 1), "two rounds of 9 score entries and a finish each")
        for site in ["club-a", "club-b", "club-c"] {
            try c.succeed(["--config", config, "--site", site, "federation", "push"])
        }
        XCTAssertEqual(try records(cluster, db, where: "topic = 'round'"), 3)
        // The index of record in SQL is the plugin's own Rule 5.2 on the same differentials.
        let swift = try c.succeed(["--config", config, "--site", "club-c", "scorecard", "index-from", "--differentials",
                                   differentials.joined(separator: ","), "--json"]).json()
        let central = try cluster.sql("SELECT handicap_index || ' ' || scores || ' ' || clubs FROM scorecard.index_of_record WHERE member = 'M-1001'", database: db)
        XCTAssertEqual(central, "\(JSONWriter.compact(swift["index"] ?? .null)) 3 club-a,club-b", "differentials \(differentials)")
        // Both clubs (and a third where Ann has played nothing) show that one index after a pull.
        for site in ["club-a", "club-b", "club-c"] {
            try c.succeed(["--config", config, "--site", site, "federation", "pull"])
            let list = try c.succeed(["--config", config, "--site", site, "scorecard", "player", "list", "--json"]).json()
            let ann = list["players"]?.arrayValue?.first
            XCTAssertEqual(ann?["member"]?.stringValue, "M-1001", site)
            XCTAssertEqual(JSONWriter.compact(ann?["federationIndex"] ?? .null), JSONWriter.compact(swift["index"] ?? .null), site)
            XCTAssertEqual(ann?["federationClubs"]?.stringValue, "club-a,club-b", site)
            let text = try c.succeed(["--config", config, "--site", site, "scorecard", "player", "list"]).stdout
            XCTAssertTrue(text.contains("index of record") && text.contains("(3 scores: club-a,club-b)"), text)
        }
    }

    // MARK: idempotent, resumable

    func testAPushSentTwiceChangesNothingAndSurvivesTheServerGoingAway() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster)
        let config = try configuration(c, cluster, db: db, batch: 10)
        try c.succeed(["--config", config, "--site", "club-a", "hp", "publish", "--topic", "shot", "--key", "s", "--count", "35"])
        // The server is gone: nothing ships, nothing is lost.
        cluster.stop()
        try c.fail(["--config", config, "--site", "club-a", "federation", "push"], contains: ["127.0.0.1"])
        XCTAssertEqual(try c.succeed(["--config", config, "--site", "club-a", "outbox", "--json"]).json()["waiting"]?.intValue, 35)
        try cluster.start()
        // It goes away in the middle of a push: after two batches, as psql reads the third's COPY (one
        // psql reads the whole push: the wrapper passes its input on line by line, and counts the COPYs).
        let started = c.path("psql-started")
        let wrapper = try psqlFilter(c, "psql-wrapper.sh", started: started,
                                     onCopy: "if [ $n -eq 3 ]; then \(cluster.stopCommand) >/dev/null 2>&1; fi")
        c.environment["CLUBHOUSE_PSQL"] = wrapper
        try c.fail(["--config", config, "--site", "club-a", "federation", "push"], contains: ["wait in the outbox"])
        XCTAssertEqual(try String(contentsOfFile: started, encoding: .utf8).count, 1, "one psql for the push's query and its three batches")
        c.environment["CLUBHOUSE_PSQL"] = nil
        try cluster.start()
        XCTAssertEqual(try records(cluster, db), 20, "two batches of ten were committed before the server went away")
        XCTAssertEqual(try c.succeed(["--config", config, "--site", "club-a", "outbox", "--json"]).json()["waiting"]?.intValue, 15)
        // A host that never heard the commit sends a batch again: the copy of the database from before the
        // push is put back (its outbox still holds all 35), and the push sends everything twice over.
        let database = c.dataDirectory.appendingPathComponent("club-a/org.tests.publish.a.sqlite").path
        let copy = c.path("before.sqlite"), forged = c.path("forged.sqlite")
        try? FileManager.default.removeItem(atPath: copy)
        try? FileManager.default.removeItem(atPath: forged)
        try sqlite(database, "VACUUM INTO '\(copy)'")
        try sqlite(database, "VACUUM INTO '\(forged)'")
        try c.succeed(["--config", config, "--site", "club-a", "federation", "push"])
        XCTAssertEqual(try records(cluster, db), 35)
        try? FileManager.default.removeItem(atPath: database + "-wal")
        try? FileManager.default.removeItem(atPath: database + "-shm")
        XCTAssertEqual(rename(copy, database), 0, "put the copy back")
        let again = try c.succeed(["--config", config, "--site", "club-a", "federation", "push", "--json"]).json()
        XCTAssertEqual(again["shipped"]?.intValue, 15)
        XCTAssertEqual(try records(cluster, db), 35, "nothing lost, nothing doubled")
        XCTAssertEqual(try cluster.sql("SELECT count(DISTINCT seq) || ' ' || min(seq) || ' ' || max(seq) FROM clubhouse.records", database: db), "35 1 35")
        XCTAssertTrue(try c.succeed(["--config", config, "--site", "club-a", "federation", "push"]).stdout.contains("Nothing waited"))
        // A host whose record 30 is not the one the federation has under that number (what a second host
        // publishing as this site id would send): refused whole, one line, and it waits.
        try sqlite(forged, "UPDATE _clubhouse_outbox SET (key, body, sha256) = (SELECT key, body, sha256 FROM _clubhouse_outbox WHERE seq = 29) WHERE seq = 30")
        try? FileManager.default.removeItem(atPath: database + "-wal")
        try? FileManager.default.removeItem(atPath: database + "-shm")
        XCTAssertEqual(rename(forged, database), 0, "put the forged copy back")
        try c.fail(["--config", config, "--site", "club-a", "federation", "push"],
                   contains: ["site id 'club-a' already has a different record 30 of plugin org.tests.publish.a (two hosts publish as this site id, or this data directory was restored from an older copy? give each host its own site_id)",
                              "wait in the outbox"])
        XCTAssertEqual(try records(cluster, db), 35, "nothing of the refused batch was kept")
    }

    // MARK: a record is an event at its place in the site's sequence (attack round 3)

    /// The same fact published again (a session imported, deleted, imported again) is a new record at its
    /// new sequence number: the federation keeps the whole history and every sequence number the site
    /// shipped, while a batch sent twice still changes nothing (testAPushSentTwice…).
    func testARepeatedFactAtANewSequenceIsKeptAndEverySequenceNumberShips() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let config = try configuration(c, cluster, db: db, sites: ["club-a"])
        let site = ["--config", config, "--site", "club-a"]
        // The fixture's "round" stands for a session: published, deleted, published again, … (the fact and its
        // deletion each the same body every time).
        for body in [#"{"n":1}"#, #"{"deleted":true}"#, #"{"n":1}"#, #"{"deleted":true}"#, #"{"n":1}"#] {
            try c.succeed(site + ["hp", "publish", "--topic", "round", "--key", "session/abc", "--body", body])
        }
        let pushed = try c.succeed(site + ["federation", "push", "--json"]).json()
        XCTAssertEqual(pushed["shipped"]?.intValue, 5)
        XCTAssertEqual(try cluster.sql("SELECT string_agg(seq || ':' || canonical, ' ' ORDER BY seq) FROM clubhouse.records", database: db),
                       #"1:{"n":1} 2:{"deleted":true} 3:{"n":1} 4:{"deleted":true} 5:{"n":1}"#)
        let outbox = try c.succeed(site + ["outbox", "--json"]).json()
        let plugin = outbox["plugins"]?.arrayValue?.first { $0["plugin"]?.stringValue == "org.tests.publish.a" }
        XCTAssertEqual(plugin?["shippedSeq"]?.intValue, 5, "\(outbox)")
        XCTAssertEqual(try cluster.sql("SELECT max(seq) FROM clubhouse.records WHERE site_id = 'club-a'", database: db), "5",
                       "the central highest sequence is what the site says it shipped")
    }

    /// A club with its own credentials cannot store a jsonb body that is not its canonical text (the hash
    /// covers the text): the CHECK records_body refuses it.
    func testABodyThatIsNotItsCanonicalTextIsRefused() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let insert = "INSERT INTO clubhouse.records (site_id, plugin, plugin_version, topic, key, seq, canonical, body, sha256, published_at) VALUES ('club-a', 'p', '1', 't', 'k', %@, '{\"n\":1}', '%@', encode(sha256('{\"n\":1}'), 'hex'), now())"
        let forged = try psqlAsSite(cluster, db: db, role: "clubhouse_site_club_a", pgpass: c.environment["PGPASSFILE"] ?? "",
                                    String(format: insert, "1", #"{"n":2}"#))
        XCTAssertTrue(forged.contains("records_body"), forged)
        let honest = try psqlAsSite(cluster, db: db, role: "clubhouse_site_club_a", pgpass: c.environment["PGPASSFILE"] ?? "",
                                    String(format: insert, "2", #"{"n": 1}"#))
        XCTAssertEqual(honest, "", "the same JSON, however spaced, is its canonical text")
        XCTAssertEqual(try records(cluster, db), 1)
    }

    /// The fourth outside attack (b07): club-b inserted its own well-hashed "round" record with a "date" that is
    /// not a date (or a round number past an integer), and from then on scorecard.scores failed for every club:
    /// every pull stopped. Such a record is refused at the insert, with the site, the sequence and the field.
    func testARoundRecordTheCentralViewCannotReadIsRefusedAndEveryPullGoesOn() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a", "club-b"])
        let config = try configuration(c, cluster, db: db, sites: ["club-a", "club-b"])
        try c.succeed(["federation", "migrate", "--url", cluster.adminURL(db), "--plugin", "org.clubhouse.scorecard",
                       "--dir", Clubhouse.repositoryRoot.appendingPathComponent("Plugins/Scorecard/federation/postgresql").path])
        func insert(_ seq: Int, _ canonical: String, topic: String = "round") throws -> String {
            try psqlAsSite(cluster, db: db, role: "clubhouse_site_club_b", pgpass: c.environment["PGPASSFILE"] ?? "", """
                INSERT INTO clubhouse.records (site_id, plugin, plugin_version, topic, key, seq, canonical, body, sha256, published_at)
                VALUES ('club-b', 'org.clubhouse.scorecard', '1', '\(topic)', 'round/1', \(seq), '\(canonical)', '\(canonical)',
                        encode(sha256(convert_to('\(canonical)', 'UTF8')), 'hex'), now())
                """)
        }
        let refused: [(String, String)] = [
            (#"{"date":"not-a-date","players":[],"round":1}"#, #"record 1 of site club-b: "date" must be YYYY-MM-DD, not not-a-date"#),
            (#"{"date":"2026-02-30","players":[],"round":1}"#, #"record 2 of site club-b: "date" 2026-02-30 is not a day of the calendar"#),
            (#"{"date":"2026-05-01","players":[],"round":99999999999}"#, #"record 3 of site club-b: "round" must be a whole number from 1 to 999999999, not 99999999999"#),
            (#"{"date":"2026-05-01","players":[{"differential":1e9,"member":"M-1"}],"round":1}"#, "a differential of 1000000000 is not a golf score's"),
            (#"{"date":"2026-05-01","players":{},"round":1}"#, #""players" must be an array"#),
        ]
        for (n, (canonical, message)) in refused.enumerated() {
            let answer = try insert(n + 1, canonical)
            XCTAssertTrue(answer.contains(message), "\(canonical): \(answer)")
        }
        XCTAssertEqual(try insert(6, #"{"date":"2024-02-29","players":[{"differential":12.3,"member":"M-1"}],"round":1}"#), "")
        XCTAssertEqual(try insert(7, #"{"date":null,"round":1}"#, topic: "round.deleted"), "", "a deletion may carry no date")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM scorecard.scores", database: db), "0", "the round was deleted after")
        try c.succeed(["--config", config, "--site", "club-a", "federation", "pull"])
    }

    /// A federation made by an older host (schema 1: the key (topic, key, sha256), no records_body) is
    /// refused by push with the way out, and `federation init` again upgrades it in place.
    func testASchemaOneFederationIsUpgradedByInitAgain() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let config = try configuration(c, cluster, db: db, sites: ["club-a"])
        let site = ["--config", config, "--site", "club-a"]
        try c.succeed(site + ["hp", "publish", "--topic", "round", "--key", "r"])
        try c.succeed(site + ["federation", "push"])
        try cluster.sql("""
            ALTER TABLE clubhouse.records DROP CONSTRAINT records_pkey;
            ALTER TABLE clubhouse.records DROP CONSTRAINT records_body;
            ALTER TABLE clubhouse.records ADD PRIMARY KEY (plugin, site_id, topic, key, sha256);
            ALTER TABLE clubhouse.records ADD UNIQUE (plugin, site_id, seq);
            UPDATE clubhouse.meta SET value = '1' WHERE key = 'schema_version'
            """, database: db)
        try c.succeed(site + ["hp", "publish", "--topic", "round", "--key", "r"])
        try c.fail(site + ["federation", "push"],
                   contains: ["clubhouse schema is version 1, older than this host's 3", "clubhouse federation init --url"])
        try c.succeed(["federation", "init", "--url", cluster.adminURL(db), "--sites", "club-a"])
        XCTAssertEqual(try cluster.sql("SELECT value FROM clubhouse.meta WHERE key = 'schema_version'", database: db), "3")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM pg_constraint WHERE conname = 'records_body' AND conrelid = 'clubhouse.records'::regclass", database: db), "1")
        XCTAssertEqual(try c.succeed(site + ["federation", "push", "--json"]).json()["shipped"]?.intValue, 1)
        XCTAssertEqual(try cluster.sql("SELECT string_agg(seq || ':' || topic, ' ' ORDER BY seq) FROM clubhouse.records", database: db),
                       "1:round 2:round", "the same fact again is kept after the upgrade")
    }

    /// A federation made by a host of schema 2 (clubhouse.records partitioned by plugin, each partition a
    /// plain table) is upgraded in place by `federation init`: each partition becomes one partitioned by
    /// site with a leaf per site, the rows move over, a view on clubhouse.records (the plugins' central
    /// SQL) keeps working, and the next push COPYs straight into the site's leaf.
    func testASchemaTwoFederationIsUpgradedInPlaceToALeafPerSite() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let row = { (plugin: String, seq: Int) in
            "('club-a', '\(plugin)', '1', 'round', 'k\(seq)', \(seq), '{\"n\":\(seq)}', '{\"n\":\(seq)}', encode(sha256('{\"n\":\(seq)}'), 'hex'), now())"
        }
        let db = try federation(c, cluster, sites: ["club-a"], before: """
            DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'clubhouse_site_club_a') THEN CREATE ROLE clubhouse_site_club_a LOGIN; END IF; END $$;
            CREATE SCHEMA clubhouse;
            CREATE TABLE clubhouse.meta (key text PRIMARY KEY, value text NOT NULL);
            INSERT INTO clubhouse.meta VALUES ('schema_version', '2');
            CREATE TABLE clubhouse.sites (site_id text PRIMARY KEY, role name NOT NULL UNIQUE, claimed_by text, claimed_at timestamptz);
            INSERT INTO clubhouse.sites (site_id, role) VALUES ('club-a', 'clubhouse_site_club_a');
            CREATE TABLE clubhouse.records (
                site_id text NOT NULL, plugin text NOT NULL, plugin_version text NOT NULL, topic text NOT NULL,
                key text NOT NULL, seq bigint NOT NULL, canonical text NOT NULL, body jsonb NOT NULL, sha256 text NOT NULL,
                published_at timestamptz NOT NULL, received_at timestamptz NOT NULL DEFAULT now(),
                CONSTRAINT records_hash CHECK (sha256 = encode(sha256(convert_to(canonical, 'UTF8')), 'hex')),
                CONSTRAINT records_body CHECK (body = canonical::jsonb),
                PRIMARY KEY (plugin, site_id, seq)) PARTITION BY LIST (plugin);
            CREATE TABLE clubhouse.records_default PARTITION OF clubhouse.records DEFAULT;
            CREATE TABLE clubhouse.records_org_clubhouse_scorecard PARTITION OF clubhouse.records FOR VALUES IN ('org.clubhouse.scorecard');
            INSERT INTO clubhouse.records (site_id, plugin, plugin_version, topic, key, seq, canonical, body, sha256, published_at)
                VALUES \(row("org.tests.publish.a", 1)), \(row("org.tests.publish.a", 2)), \(row("org.clubhouse.scorecard", 1));
            CREATE VIEW public.per_plugin AS SELECT plugin, count(*) AS n FROM clubhouse.records GROUP BY plugin;
            """)
        XCTAssertEqual(try cluster.sql("SELECT value FROM clubhouse.meta WHERE key = 'schema_version'", database: db), "3")
        XCTAssertEqual(try cluster.sql("SELECT string_agg(plugin || '=' || n, ' ' ORDER BY plugin) FROM public.per_plugin", database: db),
                       "org.clubhouse.scorecard=1 org.tests.publish.a=2", "the rows moved, the view kept")
        XCTAssertEqual(try cluster.sql("""
            SELECT count(*) FROM clubhouse.records r JOIN clubhouse.leaves l ON r.tableoid = format('clubhouse.%I', l.relation)::regclass
            WHERE l.site_id = r.site_id AND l.plugin IN (r.plugin, '')
            """, database: db), "3", "every row in its site's leaf")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM pg_class WHERE relname LIKE 'v2_%'", database: db), "0")
        // The site pushes on into its leaf of the DEFAULT partition (the fixture's plugin has no partition).
        let config = try configuration(c, cluster, db: db, sites: ["club-a"])
        try c.succeed(["--config", config, "--site", "club-a", "hp", "publish", "--topic", "round", "--key", "r", "--count", "2"])
        try sqlite(c.dataDirectory.appendingPathComponent("club-a/org.tests.publish.a.sqlite").path,
                   "UPDATE _clubhouse_outbox SET seq = seq + 2; UPDATE _clubhouse_outbox_state SET last_seq = 4, shipped_seq = 2")
        XCTAssertEqual(try c.succeed(["--config", config, "--site", "club-a", "federation", "push", "--json"]).json()["shipped"]?.intValue, 2)
        XCTAssertEqual(try cluster.sql("""
            SELECT string_agg(seq || '@' || (tableoid = (SELECT format('clubhouse.%I', relation)::regclass FROM clubhouse.leaves WHERE plugin = '' AND site_id = 'club-a')), ' ' ORDER BY seq)
            FROM clubhouse.records WHERE plugin = 'org.tests.publish.a'
            """, database: db), "1@true 2@true 3@true 4@true")
    }

    // MARK: the WHS record across clubs (Rules 5.7–5.9 in SQL)

    /// Three golfers whose records (rounds at two clubs, over two years) trigger the soft cap, the hard cap
    /// and exceptional scores: the index of record computed in PostgreSQL (002_caps_and_exceptional_scores.sql)
    /// equals the plugin's own scoring record (ScoringRecord, the Swift engine `scorecard index` shows) on
    /// the same rounds — index, Low Handicap Index, which cap acted, how many exceptional scores.
    func testTheCentralIndexAppliesCapsAndExceptionalScoresAsThePluginDoes() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a", "club-b"])
        try c.succeed(["federation", "migrate", "--url", cluster.adminURL(db), "--plugin", "org.clubhouse.scorecard",
                       "--dir", Clubhouse.repositoryRoot.appendingPathComponent("Plugins/Scorecard/federation/postgresql").path])
        // Differentials in tenths, one a round, `gap` days apart (every fifth round the same day as the one before).
        let histories: [(member: String, gap: Int, tenths: [Int])] = [
            ("M-SOFT", 20, Array(repeating: 100, count: 20) + Array(repeating: 170, count: 16)),
            ("M-HARD", 9, Array(repeating: 100, count: 20) + Array(repeating: 250, count: 20)),
            ("M-EXCEPT", 11, Array(repeating: 150, count: 12) + [60, 155, 150, 30] + Array(repeating: 170, count: 10)),
        ]
        var values: [String] = []
        var seq = [0, 0]
        var round = 0
        for history in histories {
            var rounds: [PostedRound] = []
            var day = try XCTUnwrap(GolfDate(year: 2024, month: 1, day: 3))
            for (n, tenths) in history.tenths.enumerated() {
                if n % 5 != 4 { day = day.adding(days: history.gap) }
                round += 1
                // 18 holes of par 4 in 4 strokes each (AGS 72 whatever the index: never above net double bogey)
                // on a rating of 72.0 − d at slope 113: the Score Differential is exactly d.
                rounds.append(PostedRound(roundID: round, date: day, holeCount: .eighteen, rating: Tenths(raw: 720 - tenths), slope: 113,
                                          par: 72, pcc: .zero, holes: Array(repeating: PlayedHole(par: 4, allocationRank: 1, strokes: 4), count: 18)))
                let site = round % 2
                seq[site] += 1
                let text = #"{"date":"\#(day)","players":[{"differential":\#(Tenths(raw: tenths)),"member":"\#(history.member)"}],"round":\#(round)}"#
                values.append("('club-\(site == 0 ? "a" : "b")', 'org.clubhouse.scorecard', '1', 'round', 'round/\(round)', \(seq[site]), '\(text)', '\(text)', encode(sha256(convert_to('\(text)', 'UTF8')), 'hex'), now())")
            }
            let local = ScoringRecord.evaluate(rounds)
            XCTAssertEqual(local.outcomes.compactMap(\.differential).map(\.raw), history.tenths, "the rounds make the differentials meant")
            try cluster.sql("""
                INSERT INTO clubhouse.records (site_id, plugin, plugin_version, topic, key, seq, canonical, body, sha256, published_at)
                VALUES \(values.joined(separator: ",\n"))
                """, database: db)
            values = []
            let central = try cluster.sql("""
                SELECT handicap_index || ' ' || coalesce(low_index::text, '-') || ' ' || soft_cap || ' ' || hard_cap || ' ' || exceptional_scores
                FROM scorecard.index_of_record WHERE member = '\(history.member)'
                """, database: db)
            // One member's lookup (migration 004) gives the view's row.
            XCTAssertEqual(try cluster.sql("""
                SELECT handicap_index || ' ' || coalesce(low_index::text, '-') || ' ' || soft_cap || ' ' || hard_cap || ' ' || exceptional_scores
                FROM scorecard.index_of('\(history.member)')
                """, database: db), central, history.member)
            let calculation = try XCTUnwrap(local.calculation)
            let exceptional = local.outcomes.filter { $0.exceptionalReduction.raw > 0 }.count
            XCTAssertEqual(central, "\(calculation.index) \(local.lowIndex.map { "\($0)" } ?? "-") \(calculation.softCapApplied) \(calculation.hardCapApplied) \(exceptional)",
                           history.member)
            switch history.member {
            case "M-SOFT": XCTAssertTrue(calculation.softCapApplied && !calculation.hardCapApplied, "\(calculation)")
            case "M-HARD": XCTAssertTrue(calculation.hardCapApplied, "\(calculation)")
            default: XCTAssertGreaterThanOrEqual(exceptional, 2, "\(local.outcomes.map(\.exceptionalReduction))")
            }
        }
        // Its plan reads the member's rounds through the expression index on the players (on each site's
        // leaf: the index's partitions), not every round: chosen by the planner once the federation holds
        // more than a handful of rounds (5,000 of other golfers here, the statistics made).
        try cluster.sql("""
            INSERT INTO clubhouse.records (site_id, plugin, plugin_version, topic, key, seq, canonical, body, sha256, published_at)
            SELECT CASE WHEN i % 2 = 0 THEN 'club-a' ELSE 'club-b' END, 'org.clubhouse.scorecard', '1', 'round', 'round/fill-' || i, 100000 + i,
                   t, t::jsonb, encode(sha256(convert_to(t, 'UTF8')), 'hex'), now()
            FROM (SELECT i, '{"date":"2025-02-01","players":[{"differential":12.5,"member":"M-FILL-' || i || '"}],"round":' || (100000 + i) || '}' AS t
                  FROM generate_series(1, 5000) i) rows;
            ANALYZE clubhouse.records;
            """, database: db)
        let leafIndexes = try cluster.sql("SELECT relid FROM pg_partition_tree('clubhouse.scorecard_round_members') WHERE isleaf", database: db)
            .split(separator: "\n").map { String($0.split(separator: ".").last ?? $0) }
        XCTAssertEqual(leafIndexes.count, 2, "one on each site's leaf")
        let plan = try cluster.sql("EXPLAIN SELECT * FROM scorecard.index_of('M-SOFT')", database: db)
        XCTAssertTrue(leafIndexes.allSatisfy { plan.contains("Bitmap Index Scan on \($0)") }, plan)
        XCTAssertTrue(plan.contains("@> jsonb_build_array(jsonb_build_object('member'"), plan)
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM scorecard.index_of('M-NOBODY')", database: db), "0")
    }

    /// Two pushes of one site at once: the second says another is running and ships nothing; the first
    /// ships everything and says so (the counts printed are true).
    func testASecondPushOfTheSiteWhileOneRunsSaysSoAndTheCountsAreTrue() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let config = try configuration(c, cluster, db: db, sites: ["club-a"], batch: 10)
        let site = ["--config", config, "--site", "club-a"]
        try c.succeed(site + ["hp", "publish", "--topic", "shot", "--key", "s", "--count", "25"])
        let started = c.path("slow-psql-started")
        let slow = try psqlFilter(c, "psql-slow.sh", onCopy: "if [ $n -eq 1 ]; then touch \(started); sleep 1; fi")
        c.environment["CLUBHOUSE_PSQL"] = slow
        let output = Pipe()
        let first = try background(c, site + ["federation", "push", "--json"], output: output, errors: FileHandle.nullDevice)
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: started) && Date() < deadline { usleep(20_000) }
        try c.fail(site + ["federation", "push"],
                   contains: ["another federation push of site 'club-a' is running", "run push again when it has finished"])
        let said = output.fileHandleForReading.readDataToEndOfFile()
        first.waitUntilExit()
        c.environment["CLUBHOUSE_PSQL"] = nil
        XCTAssertEqual(first.terminationStatus, 0)
        let json = try JSONParser.parse(String(decoding: said, as: UTF8.self))
        XCTAssertEqual(json["shipped"]?.intValue, 25, String(decoding: said, as: UTF8.self))
        XCTAssertEqual(try records(cluster, db), 25)
        XCTAssertTrue(try c.succeed(site + ["federation", "push"]).stdout.contains("Nothing waited"))
    }

    /// psql killed mid-push (the OOM killer, an operator): the push says so, not "refused"; nothing is
    /// lost and the next push ships it.
    func testPsqlKilledMidPushSaysSoAndTheNextPushShipsIt() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let config = try configuration(c, cluster, db: db, sites: ["club-a"])
        let site = ["--config", config, "--site", "club-a"]
        try c.succeed(site + ["hp", "publish", "--topic", "shot", "--key", "s", "--count", "3"])
        let killed = try psqlFilter(c, "psql-killed.sh", onCopy: "kill -9 $wrapper; exit")
        c.environment["CLUBHOUSE_PSQL"] = killed
        let result = try c.fail(site + ["federation", "push"],
                                contains: ["psql ended by signal 9", "wait in the outbox", "nothing is lost, run push again"])
        XCTAssertFalse(result.stderr.contains("refused"), result.stderr)
        c.environment["CLUBHOUSE_PSQL"] = nil
        XCTAssertEqual(try c.succeed(site + ["federation", "push", "--json"]).json()["shipped"]?.intValue, 3)
        XCTAssertEqual(try records(cluster, db), 3)
    }

    /// `federation migrate` without --dir applies the central SQL each plugin of the site ships beside its
    /// library, laid out as scripts/install.sh lays out the bundled plugins (federation/<id>/postgresql/
    /// beside several libraries); where none is shipped it says how to name a folder.
    func testMigrateWithoutDirFindsTheSQLInstalledBesideThePlugins() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let products = try configuration(c, cluster, db: db, sites: ["club-a"])
        try c.fail(["--config", products, "--site", "club-a", "federation", "migrate", "--url", cluster.adminURL(db)], exitCode: 2,
                   contains: ["federation migrate: no plugin of site 'club-a' ships central SQL beside its library", "--plugin ID --dir PATH"])
        try c.fail(["--config", products, "federation", "migrate", "--url", cluster.adminURL(db), "--dir", "/tmp"], exitCode: 2,
                   contains: ["federation migrate: --dir needs --plugin"])
        let lib = c.path("prefix-lib")
        let sqlFolder = lib + "/federation/org.clubhouse.scorecard/postgresql"
        try FileManager.default.createDirectory(atPath: sqlFolder, withIntermediateDirectories: true)
        let fixture = try FixturePlugins.build("PUBLISH", id: "org.tests.publish.a", file: "hostile_publish.c")
        try FileManager.default.copyItem(atPath: Clubhouse.productsDirectory.appendingPathComponent("libScorecardPlugin.so").path,
                                         toPath: lib + "/libScorecardPlugin.so")
        try FileManager.default.copyItem(atPath: fixture, toPath: lib + "/libhp.so")
        try FileManager.default.copyItem(atPath: Clubhouse.repositoryRoot.appendingPathComponent("Plugins/Scorecard/federation/postgresql/001_scoring_record.sql").path,
                                         toPath: sqlFolder + "/001_scoring_record.sql")
        let installed = try c.write("installed.json", """
            {"sites": {"club-a": {"plugins": {"scorecard": {"path": "\(lib)/libScorecardPlugin.so", "grants": ["storage"]},
                                              "hp": {"path": "\(lib)/libhp.so", "grants": ["storage"]}}}}}
            """)
        let site = ["--config", installed, "--site", "club-a"]
        // scripts/install.sh lists the bundled SQL's SHA-256s beside it: a file added there, or changed, is refused.
        let digest = try sha256(sqlFolder + "/001_scoring_record.sql")
        _ = try c.write("prefix-lib/federation/org.clubhouse.scorecard/manifest.json", #"{"federation": {"001_scoring_record.sql": "\#(digest)"}}"#)
        _ = try c.write("prefix-lib/federation/org.clubhouse.scorecard/postgresql/002_added.sql", "CREATE ROLE intruder SUPERUSER;\n")
        try c.fail(site + ["federation", "migrate", "--url", cluster.adminURL(db)], exitCode: 2,
                   contains: ["\(sqlFolder)/002_added.sql: not a file of the installed package (its manifest, \(lib)/federation/org.clubhouse.scorecard/manifest.json, lists 001_scoring_record.sql)"])
        try FileManager.default.removeItem(atPath: sqlFolder + "/002_added.sql")
        let applied = try c.succeed(site + ["federation", "migrate", "--url", cluster.adminURL(db), "--json"]).json()
        let one = applied["plugins"]?.arrayValue
        XCTAssertEqual(one?.count, 1, "\(applied)")
        XCTAssertEqual(one?.first?["plugin"]?.stringValue, "org.clubhouse.scorecard")
        XCTAssertEqual(one?.first?["dir"]?.stringValue, sqlFolder)
        XCTAssertEqual(JSONWriter.compact(one?.first?["applied"] ?? .null), "[1]")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM scorecard.index_of_record", database: db), "0")
        XCTAssertTrue(try c.succeed(site + ["federation", "migrate", "--url", cluster.adminURL(db)]).stdout
            .contains("already has every migration of org.clubhouse.scorecard"))
    }

    /// A plugin's package carries its central SQL (`plugin pack --federation`), `plugin install` puts it
    /// beside the library, and `federation migrate` applies it from there; a package whose SQL is not
    /// numbered 1, 2, 3, … is refused at pack time, and an installed file changed after it was applied is
    /// refused by migrate — each one line naming the file and what to do.
    func testAPackageCarriesItsCentralSQLAndMigrateAppliesItFromTheInstalledPackage() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let id = "org.tests.fedsql"
        let library = try FixturePlugins.build("OK", id: id, version: "1.4.0")
        let sql = c.path("fedsql-sql")
        try FileManager.default.createDirectory(atPath: sql, withIntermediateDirectories: true)
        _ = try c.write("fedsql-sql/001_counts.sql", """
            CREATE SCHEMA IF NOT EXISTS fedsql;
            CREATE OR REPLACE VIEW fedsql.counts AS SELECT site_id, count(*) AS n FROM clubhouse.records WHERE plugin = '\(id)' GROUP BY site_id;
            """)
        _ = try c.write("fedsql-sql/002_latest.sql", "CREATE OR REPLACE VIEW fedsql.latest AS SELECT max(seq) AS seq FROM clubhouse.records WHERE plugin = '\(id)';\n")
        // Bad folders first: a gap, a number twice, a name that is not NNN_name.sql.
        let gap = c.path("fedsql-gap")
        try FileManager.default.createDirectory(atPath: gap, withIntermediateDirectories: true)
        _ = try c.write("fedsql-gap/001_counts.sql", "SELECT 1;\n")
        _ = try c.write("fedsql-gap/003_later.sql", "SELECT 1;\n")
        try c.fail(["plugin", "pack", library, "--out", c.path("gap.chpkg"), "--federation", gap], exitCode: 2,
                   contains: ["\(gap)/003_later.sql: migration versions go 1, 2, 3, … without gaps, and this is 3 where 2 belongs; renumber it 002_… or add the missing one"])
        _ = try c.write("fedsql-gap/002_later.sql", "SELECT 1;\n")
        _ = try c.write("fedsql-gap/002_again.sql", "SELECT 1;\n")
        try FileManager.default.removeItem(atPath: gap + "/003_later.sql")
        try c.fail(["plugin", "pack", library, "--out", c.path("gap.chpkg"), "--federation", gap], exitCode: 2,
                   contains: ["\(gap)/002_later.sql: migration 2 twice (002_again.sql too); each number once"])
        try FileManager.default.removeItem(atPath: gap + "/002_again.sql")
        _ = try c.write("fedsql-gap/2-init.sql", "SELECT 1;\n")
        try c.fail(["plugin", "pack", library, "--out", c.path("gap.chpkg"), "--federation", gap], exitCode: 2,
                   contains: ["\(gap)/2-init.sql: a federation migration is named NNN_name.sql", "rename it"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.path("gap.chpkg")), "nothing written")
        // The package: the SQL in it, listed with its hashes; installed beside the library.
        let package = c.path("fedsql-1.4.0.chpkg")
        let manifest = try c.succeed(["plugin", "pack", library, "--out", package, "--federation", sql, "--json"]).json()["manifest"]
        XCTAssertEqual(manifest?["federation"]?.objectValue?.keys.sorted(), ["001_counts.sql", "002_latest.sql"])
        try c.succeed(["plugin", "install", package])
        let installed = c.dataDirectory.appendingPathComponent("plugins/\(id)/1.4.0/federation/postgresql").path
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: installed).sorted(), ["001_counts.sql", "002_latest.sql"])
        XCTAssertTrue(try c.succeed(["plugin", "install", package]).stdout.contains("already installed (identical)"))
        let config = try c.write("fedsql.json", #"{"sites": {"club-a": {"plugins": {"fs": {"id": "\#(id)", "grants": ["storage"]}}}}}"#)
        let site = ["--config", config, "--site", "club-a"]
        let applied = try c.succeed(site + ["federation", "migrate", "--url", cluster.adminURL(db), "--json"]).json()
        XCTAssertEqual(applied["plugins"]?.arrayValue?.first?["dir"]?.stringValue, installed)
        XCTAssertEqual(JSONWriter.compact(applied["plugins"]?.arrayValue?.first?["applied"] ?? .null), "[1,2]")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM fedsql.counts", database: db), "0")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM fedsql.latest", database: db), "1")
        // An installed file changed after it was applied: refused, naming it, nothing applied.
        _ = try c.write("fedsql-extra.sql", "CREATE VIEW fedsql.never AS SELECT 1;\n")
        try FileManager.default.copyItem(atPath: c.path("fedsql-extra.sql"), toPath: installed + "/003_never.sql")
        let edited = installed + "/002_latest.sql"
        try Data("CREATE OR REPLACE VIEW fedsql.latest AS SELECT 0 AS seq;\n".utf8).write(to: URL(fileURLWithPath: edited))
        try c.fail(site + ["federation", "migrate", "--url", cluster.adminURL(db)], exitCode: 2,
                   contains: ["\(edited): migration 2 of plugin \(id) changed after it was applied to the federation",
                              "nothing was applied: put back the text that was applied and ship the change as a new migration 004_name.sql"])
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM pg_views WHERE schemaname = 'fedsql' AND viewname = 'never'", database: db), "0")
    }

    // MARK: serve pushes in the background

    /// `serve` with a "federation" ships each commit's records without a push; with the server away it
    /// backs off (one log line), and ships what waited once the server is back (one more line), nothing
    /// twice. Periodic pushes are an hour apart here: only the commits and the back-off can deliver.
    func testServePushesInTheBackgroundBacksOffWhileTheServerIsAwayAndCatchesUp() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let config = try configuration(c, cluster, db: db, sites: ["club-a"], extra: #", "push_every_seconds": 3600, "retry_max_seconds": 2"#)
        let course = try c.write("nine.json", """
            {"name": "Test Nine", "tees": [{"name": "Red", "rating": 34.1, "slope": 118, "holes": [
              {"par": 4, "strokeIndex": 1}, {"par": 3, "strokeIndex": 5}, {"par": 5, "strokeIndex": 3},
              {"par": 4, "strokeIndex": 2}, {"par": 4, "strokeIndex": 8}, {"par": 3, "strokeIndex": 9},
              {"par": 4, "strokeIndex": 4}, {"par": 4, "strokeIndex": 6}, {"par": 4, "strokeIndex": 7}]}]}
            """)
        let site = ["--config", config, "--site", "club-a"]
        try c.succeed(site + ["scorecard", "player", "add", "Ann", "--member", "M-1001"])
        try c.succeed(site + ["scorecard", "course", "add", course])
        try c.succeed(site + ["scorecard", "round", "start", "--course", "1", "--tee", "Red", "--players", "Ann", "--date", "2026-05-01", "--holes", "9"])
        let (server, client, log) = try serve(c, site)
        defer { stopServer(server) }
        func score(_ hole: Int, id: Int) throws {
            client.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"scorecard","command":"score","arguments":{"round":1,"player":"Ann","hole":\#(hole),"strokes":5}}}"#)
            let reply = try client.response(id: id).0
            XCTAssertNotNil(reply["result"], "\(reply)")
        }
        func scores() -> Int { (try? records(cluster, db, where: "topic = 'score'")) ?? -1 }
        func waitFor(_ what: String, seconds: Double = 20, _ condition: () -> Bool) {
            let deadline = Date().addingTimeInterval(seconds)
            while !condition() && Date() < deadline { usleep(100_000) }
            XCTAssertTrue(condition(), "\(what) within \(seconds) s; serve said: \(text(log))")
        }
        // A score entered through serve reaches PostgreSQL with no push.
        try score(1, id: 1)
        waitFor("the first score in PostgreSQL") { scores() == 1 }
        // The server goes away; four more scores wait in the outbox while serve retries.
        cluster.stop()
        for hole in 2...5 { try score(hole, id: hole) }
        waitFor("the failure logged") { text(log).contains("background push of site 'club-a' failed") }
        usleep(3_500_000)  // several retries (1 s, 2 s, 2 s … with jitter): still one line
        XCTAssertEqual(try c.succeed(site + ["outbox", "--json"]).json()["waiting"]?.intValue, 4)
        try cluster.start()
        waitFor("the four scores caught up after the back-off") { scores() == 5 }
        waitFor("the recovery logged") { text(log).contains("is reachable again; caught up 4 records of site 'club-a'") }
        let said = text(log)
        XCTAssertEqual(said.components(separatedBy: "background push of site 'club-a' failed").count - 1, 1, said)
        XCTAssertTrue(said.contains("127.0.0.1"), "the failure says where: \(said)")
        XCTAssertEqual(said.components(separatedBy: "is reachable again").count - 1, 1, said)
        XCTAssertEqual(try cluster.sql("SELECT count(*) || ' ' || count(DISTINCT seq) FROM clubhouse.records", database: db), "5 5", "nothing twice")
        XCTAssertEqual(try c.succeed(site + ["outbox", "--json"]).json()["waiting"]?.intValue, 0)
    }

    /// serve's shutdown kills a psql that hangs (a server that accepts and never answers) instead of waiting for it.
    func testServeStopsAtOnceWhileItsBackgroundPushHangs() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let config = try configuration(c, cluster, db: db, sites: ["club-a"])
        let site = ["--config", config, "--site", "club-a"]
        try c.succeed(site + ["hp", "publish", "--topic", "round", "--key", "r", "--count", "2"])
        let started = c.path("psql-started")
        let hang = try c.write("psql-hang.sh", "#!/bin/sh\ntouch \(started)\nexec sleep 30\n")
        chmod(hang, 0o755)
        c.environment["CLUBHOUSE_PSQL"] = hang
        let (server, _, log) = try serve(c, site)
        defer { stopServer(server) }
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: started) && Date() < deadline { usleep(50_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: started), "serve never started its push: \(text(log))")
        let stopping = Date()
        server.terminate()
        while server.isRunning && Date().timeIntervalSince(stopping) < 10 { usleep(20_000) }
        XCTAssertFalse(server.isRunning, "serve waited on the hung psql")
        XCTAssertLessThan(Date().timeIntervalSince(stopping), 5, text(log))
        c.environment["CLUBHOUSE_PSQL"] = nil
        XCTAssertEqual(try c.succeed(site + ["outbox", "--json"]).json()["waiting"]?.intValue, 2, "nothing was marked shipped")
    }

    /// `serve --socket` for a site, its standard error in a file.
    func serve(_ c: Clubhouse, _ site: [String]) throws -> (Process, RPCSocketClient, String) {
        let socketPath = c.path("serve-\(UUID().uuidString.prefix(6)).sock")
        let log = c.path("serve-\(UUID().uuidString.prefix(6)).log")
        FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = Clubhouse.executable
        process.arguments = site + ["serve", "--socket", socketPath]
        var env = c.childEnvironment
        for (k, v) in c.environment { env[k] = v }
        process.environment = env
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, try RPCSocketClient(path: socketPath), log)
    }

    func text(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    // MARK: faults

    func testFaultsAreOneLineAndLoseNothing() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, wrongPasswordFor: "club-c")
        let config = try configuration(c, cluster, db: db)
        for site in ["club-a", "club-b", "club-c"] {
            try c.succeed(["--config", config, "--site", site, "hp", "publish", "--topic", "round", "--key", "r", "--count", "3"])
        }
        // A wrong password.
        try c.fail(["--config", config, "--site", "club-c", "federation", "push"], contains: ["password authentication failed", "clubhouse_site_club_c"])
        // A record the server refuses (its body no longer matches its hash): the batch waits whole.
        let database = c.dataDirectory.appendingPathComponent("club-b/org.tests.publish.a.sqlite").path
        try sqlite(database, "UPDATE _clubhouse_outbox SET body = CAST('{\"n\":2}' AS BLOB) WHERE seq = 2")
        try c.fail(["--config", config, "--site", "club-b", "federation", "push"],
                   contains: ["the federation refused records 1–3 of org.tests.publish.a", "records_hash", "wait in the outbox"])
        XCTAssertEqual(try records(cluster, db, where: "site_id = 'club-b'"), 0)
        XCTAssertEqual(try c.succeed(["--config", config, "--site", "club-b", "outbox", "--json"]).json()["waiting"]?.intValue, 3)
        // Two hosts claiming one site id: another data directory says it is club-a too.
        try c.succeed(["--config", config, "--site", "club-a", "federation", "push"])
        let other = try Clubhouse()
        other.environment["PGPASSFILE"] = c.environment["PGPASSFILE"]
        try other.succeed(["--config", config, "--site", "club-a", "hp", "publish", "--topic", "round", "--key", "x"])
        try other.fail(["--config", config, "--site", "club-a", "federation", "push"], exitCode: 2,
                       contains: ["site id 'club-a' is claimed by another host", "its own \"site_id\""])
        // A site cannot write another's records (row-level security), even with psql of its own.
        let forged = try c.run(["--config", config, "--site", "club-a", "hp", "query", "--sql", "SELECT 1"])
        XCTAssertEqual(forged.exitCode, 0)
        let rls = try psqlAsSite(cluster, db: db, role: "clubhouse_site_club_a", pgpass: c.environment["PGPASSFILE"] ?? "",
            "INSERT INTO clubhouse.records (site_id, plugin, plugin_version, topic, key, seq, canonical, body, sha256, published_at) VALUES ('club-b', 'p', '1', 't', 'k', 1, '{}', '{}', encode(sha256('{}'), 'hex'), now())")
        XCTAssertTrue(rls.contains("row-level security"), rls)
        // Nor through the leaves a push COPYs into (schema 3): another site's leaf is not its to write, and
        // its own leaf's partition bound holds it to its own site id.
        let leaf = { (site: String) throws -> String in
            try cluster.sql("SELECT relation FROM clubhouse.leaves WHERE site_id = '\(site)' AND plugin = ''", database: db)
        }
        let row = "(site_id, plugin, plugin_version, topic, key, seq, canonical, body, sha256, published_at) VALUES ('club-b', 'p', '1', 't', 'k', 1, '{}', '{}', encode(sha256('{}'), 'hex'), now())"
        let theirs = try psqlAsSite(cluster, db: db, role: "clubhouse_site_club_a", pgpass: c.environment["PGPASSFILE"] ?? "",
                                    "INSERT INTO clubhouse.\(try leaf("club-b")) \(row)")
        XCTAssertTrue(theirs.contains("permission denied"), theirs)
        let mine = try psqlAsSite(cluster, db: db, role: "clubhouse_site_club_a", pgpass: c.environment["PGPASSFILE"] ?? "",
                                  "INSERT INTO clubhouse.\(try leaf("club-a")) \(row)")
        XCTAssertTrue(mine.contains("violates partition constraint"), mine)
        XCTAssertEqual(try records(cluster, db, where: "site_id = 'club-b'"), 0, "club-b's refused batch still waits; nothing forged")
        // A schema newer than the host.
        try cluster.sql("UPDATE clubhouse.meta SET value = '99' WHERE key = 'schema_version'", database: db)
        try c.fail(["--config", config, "--site", "club-a", "federation", "push"], contains: ["schema is version 99, newer than this host's 3"])
        // No federation block, a password in the URL.
        try c.fail(["--site", "default", "federation", "push"], exitCode: 2, contains: ["has no \"federation\" in plugins.json"])
        let leaky = try c.write("leaky.json", """
            {"sites": {"default": {"federation": {"url": "postgresql://a:secret@db.example.org/fed", "site_id": "club-a"}, "plugins": {}}}}
            """)
        try c.fail(["--config", leaky, "outbox"], exitCode: 2, contains: ["credentials never go in plugins.json"])
        // A keyword form (`host=… password=…`), in plugins.json or as --url: refused, never repeated.
        let keywordForm = "host=127.0.0.1 user=clubhouse_admin password=s3cret-Kw"
        let keyword = try c.write("keyword.json", """
            {"sites": {"default": {"federation": {"url": "\(keywordForm)", "site_id": "club-a"}, "plugins": {}}}}
            """)
        let refused = try c.fail(["--config", keyword, "outbox"], exitCode: 2, contains: ["federation url must start with postgresql://"])
        XCTAssertFalse(refused.stderr.contains("s3cret-Kw"), refused.stderr)
        for command in [["federation", "init", "--sites", "club-z"], ["federation", "migrate", "--plugin", "org.clubhouse.scorecard", "--dir", "/tmp"]] {
            let said = try c.fail(command + ["--url", keywordForm], exitCode: 2,
                                  contains: ["--url takes a postgresql:// URL or a service name of pg_service.conf; a keyword form (host=… dbname=…) is not taken"])
            XCTAssertFalse(said.stderr.contains("s3cret-Kw"), said.stderr)
            // A URL with a password, in any spelling: refused before psql starts (its argv is world-readable).
            for leakyURL in ["postgresql://owner:s3cret-Kw@127.0.0.1:1/fed", "postgres://owner:s3cret-Kw@127.0.0.1:1/fed",
                             "postgresql://owner@127.0.0.1:1/fed?pass%77ord=s3cret-Kw"] {
                let leak = try c.fail(command + ["--url", leakyURL], exitCode: 2, contains: ["--url carries a password (not repeated here)"])
                XCTAssertFalse(leak.stderr.contains("s3cret-Kw"), leak.stderr)
            }
        }
    }

    /// A psql wrapper for faults: its input passes line by line through a filter beside psql (a fifo
    /// between them) that runs `onCopy` at each line starting a COPY, `$n` counting them and `$wrapper` the
    /// wrapper's pid; the filter goes when psql goes (a push keeps one psql fed for its whole run, so a
    /// wrapper that waited for the end of its input would wait for the end of the push). `started` gets a
    /// line per psql started.
    func psqlFilter(_ c: Clubhouse, _ name: String, started: String? = nil, onCopy: String) throws -> String {
        let path = try c.write(name, """
            #!/bin/sh
            \(started.map { "echo >> \($0)" } ?? "")
            wrapper=$$; fifo=$(mktemp -u); mkfifo "$fifo"; exec 3<&0
            ( n=0; while IFS= read -r line <&3; do
                case "$line" in "COPY "*) n=$((n + 1)); \(onCopy);; esac
                printf '%s\\n' "$line"
              done ) > "$fifo" &
            filter=$!
            psql "$@" < "$fifo"; status=$?
            kill $filter 2>/dev/null; rm -f "$fifo"; exit $status
            """)
        chmod(path, 0o755)
        return path
    }

    private func psqlAsSite(_ cluster: PostgresCluster, db: String, role: String, pgpass: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-X", "-q", "--no-password", "-d", cluster.url(role: role, database: db), "-c", sql]
        process.environment = ProcessInfo.processInfo.environment.merging(["PGPASSFILE": pgpass]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    private func sqlite(_ path: String, _ sql: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw XCTSkip("cannot open \(path)") }
        defer { sqlite3_close(db) }
        var message: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(db, sql, nil, nil, &message) != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "?"
            sqlite3_free(message)
            XCTFail("\(sql): \(text)")
        }
    }
}
