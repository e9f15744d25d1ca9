// The central side of a federation: the `clubhouse` schema in PostgreSQL (`clubhouse federation init`).
//
//   clubhouse.meta      schema_version (a host refuses a schema newer than it knows)
//   clubhouse.sites     one row per site: its id, its PostgreSQL role (clubhouse_site_<id>) and the host
//                       that claimed it (a second host claiming the same id is refused)
//   clubhouse.records   every record of every site, PARTITIONED BY LIST (plugin): one partition per
//                       plugin (clubhouse.records_<n>, made by `federation migrate` for the site's
//                       plugins) and a DEFAULT partition for the rest; each of them PARTITIONED BY
//                       LIST (site_id) again, one leaf per (plugin, site) (clubhouse.partitions and
//                       clubhouse.leaves name them; schema 3), which only that site's role may insert
//                       into, so a push COPYs straight into its leaf. A record is an event at its own
//                       place in its site's sequence: the key is (plugin, site_id, seq), so a batch sent
//                       twice is the same rows, while the same fact published again (a session imported,
//                       deleted and imported again) is a new row at its new sequence number. The push
//                       refuses a sequence number already there with another hash (two hosts writing one
//                       site id, a data directory restored from an older copy). One CHECK recomputes the
//                       SHA-256 of the canonical text, another holds the jsonb body to that text: what
//                       arrives is what was hashed, and a club cannot store a body that says otherwise.
//   clubhouse.migrations the plugins' central migrations applied (federation/postgresql/*.sql)
//
// Row-level security: a site's role inserts only records whose site_id is its own and reads every
// record (what the federation shares); it updates only its own row of clubhouse.sites. Its COPY into
// its own leaf is held to its site id by the leaf's partition bound (row-level security applies to
// clubhouse.records only, and refuses COPY): INSERT on a leaf is granted to that leaf's site role alone.

public enum FederationSchema {
    /// The schema version this host writes and understands. 2: the key (plugin, site_id, seq) instead of
    /// (plugin, site_id, topic, key, sha256), and the body bound to the canonical text (records_body).
    /// 3: every partition of clubhouse.records is partitioned again by site, one leaf per (plugin, site)
    /// that only the site's role may insert into, so a push COPYs straight into its leaf (FederationPush).
    public static let version = 3

    /// A site's role: clubhouse_site_<id> with '-' as '_'.
    public static func role(siteID: String) -> String {
        "clubhouse_site_" + siteID.replacing("-", with: "_")
    }

    /// A SQL string literal.
    public static func literal(_ text: String) -> String { "'" + text.replacing("'", with: "''") + "'" }

    /// The script `federation init` runs (as an administrator of the database): idempotent, and it upgrades
    /// a schema 1 or 2 in place (records, sites and the plugins' views kept).
    public static func initScript(sites: [String]) -> String {
        var sql = """
        BEGIN;
        CREATE SCHEMA IF NOT EXISTS clubhouse;
        CREATE TABLE IF NOT EXISTS clubhouse.meta (key text PRIMARY KEY, value text NOT NULL);
        INSERT INTO clubhouse.meta VALUES ('schema_version', CASE WHEN to_regclass('clubhouse.records') IS NULL THEN '\(version)' ELSE '1' END)
            ON CONFLICT (key) DO NOTHING;
        CREATE TABLE IF NOT EXISTS clubhouse.sites (
            site_id text PRIMARY KEY, role name NOT NULL UNIQUE, claimed_by text, claimed_at timestamptz);
        CREATE TABLE IF NOT EXISTS clubhouse.records (
            site_id text NOT NULL, plugin text NOT NULL, plugin_version text NOT NULL, topic text NOT NULL,
            key text NOT NULL, seq bigint NOT NULL, canonical text NOT NULL, body jsonb NOT NULL, sha256 text NOT NULL,
            published_at timestamptz NOT NULL, received_at timestamptz NOT NULL DEFAULT now(),
            CONSTRAINT records_hash CHECK (sha256 = encode(sha256(convert_to(canonical, 'UTF8')), 'hex')),
            CONSTRAINT records_body CHECK (body = canonical::jsonb),
            PRIMARY KEY (plugin, site_id, seq)
        ) PARTITION BY LIST (plugin);
        -- The partitions of clubhouse.records (one per plugin that ran `federation migrate`, '' the DEFAULT one),
        -- each PARTITION BY LIST (site_id), and their leaves: one per (plugin, site), INSERT granted to that
        -- site's role alone. The leaf's partition bound keeps a site to its own site_id when it COPYs into it
        -- (row-level security refuses COPY, and applies only through clubhouse.records).
        CREATE TABLE IF NOT EXISTS clubhouse.partitions (plugin text PRIMARY KEY, relation name NOT NULL UNIQUE);
        CREATE TABLE IF NOT EXISTS clubhouse.leaves (
            plugin text NOT NULL, site_id text NOT NULL, relation name NOT NULL UNIQUE, PRIMARY KEY (plugin, site_id));
        CREATE OR REPLACE FUNCTION clubhouse.add_leaves() RETURNS void LANGUAGE plpgsql AS $f$
        DECLARE r record; leaf text;
        BEGIN
          FOR r IN SELECT p.plugin, p.relation, s.site_id, s.role FROM clubhouse.partitions p CROSS JOIN clubhouse.sites s
                   WHERE NOT EXISTS (SELECT 1 FROM clubhouse.leaves l WHERE l.plugin = p.plugin AND l.site_id = s.site_id)
                   ORDER BY p.plugin, s.site_id LOOP
            leaf := left(r.relation, 30) || '_' || left(replace(r.site_id, '-', '_'), 24) || '_' || left(md5(r.plugin || '/' || r.site_id), 6);
            EXECUTE format('CREATE TABLE clubhouse.%I PARTITION OF clubhouse.%I FOR VALUES IN (%L)', leaf, r.relation, r.site_id);
            EXECUTE format('GRANT INSERT ON clubhouse.%I TO %I', leaf, r.role);
            INSERT INTO clubhouse.leaves VALUES (r.plugin, r.site_id, leaf);
          END LOOP;
        END $f$;
        CREATE OR REPLACE FUNCTION clubhouse.add_partition(p text) RETURNS void LANGUAGE plpgsql AS $f$
        DECLARE rel text;
        BEGIN
          SELECT relation INTO rel FROM clubhouse.partitions WHERE plugin = p;
          IF rel IS NULL THEN
            rel := CASE WHEN p = '' THEN 'records_default' ELSE left('records_' || lower(regexp_replace(p, '[^A-Za-z0-9]', '_', 'g')), 63) END;
            INSERT INTO clubhouse.partitions VALUES (p, rel);
          END IF;
          IF to_regclass(format('clubhouse.%I', rel)) IS NULL THEN
            IF p = '' THEN
              EXECUTE format('CREATE TABLE clubhouse.%I PARTITION OF clubhouse.records DEFAULT PARTITION BY LIST (site_id)', rel);
            ELSE
              EXECUTE format('CREATE TABLE clubhouse.%I PARTITION OF clubhouse.records FOR VALUES IN (%L) PARTITION BY LIST (site_id)', rel, p);
            END IF;
          END IF;
          PERFORM clubhouse.add_leaves();
        END $f$;
        -- Version 1 → 2: the key becomes (plugin, site_id, seq) and the body is bound to its text. A row whose
        -- body is not its canonical text (stored before the CHECK) stops the upgrade, which changes nothing.
        DO $$ BEGIN
          IF (SELECT value FROM clubhouse.meta WHERE key = 'schema_version') = '1' THEN
            ALTER TABLE clubhouse.records DROP CONSTRAINT records_pkey;
            ALTER TABLE clubhouse.records DROP CONSTRAINT IF EXISTS records_plugin_site_id_seq_key;
            ALTER TABLE clubhouse.records ADD PRIMARY KEY (plugin, site_id, seq);
            ALTER TABLE clubhouse.records ADD CONSTRAINT records_body CHECK (body = canonical::jsonb);
            UPDATE clubhouse.meta SET value = '2' WHERE key = 'schema_version';
          END IF;
        END $$;
        -- Version 2 → 3: each plain partition (a plugin's, the DEFAULT) is detached and renamed, a partition
        -- by site takes its place with a leaf per site, its rows move over, the old table goes. The plugins'
        -- views on clubhouse.records are kept: the parent table stays. All in this one transaction.
        DO $$ DECLARE part record; p text; BEGIN
          IF (SELECT value FROM clubhouse.meta WHERE key = 'schema_version') = '2' THEN
            FOR part IN SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                        WHERE i.inhparent = 'clubhouse.records'::regclass AND c.relkind = 'r' ORDER BY c.relname LOOP
              p := CASE WHEN part.bound = 'DEFAULT' THEN '' ELSE substring(part.bound from '^FOR VALUES IN \\(''(.*)''\\)$') END;
              EXECUTE format('ALTER TABLE clubhouse.records DETACH PARTITION clubhouse.%I', part.relname);
              EXECUTE format('ALTER TABLE clubhouse.%I RENAME TO %I', part.relname, left('v2_' || part.relname, 63));
              INSERT INTO clubhouse.partitions VALUES (p, part.relname) ON CONFLICT DO NOTHING;
              PERFORM clubhouse.add_partition(p);
              EXECUTE format('INSERT INTO clubhouse.records SELECT * FROM clubhouse.%I', left('v2_' || part.relname, 63));
              EXECUTE format('DROP TABLE clubhouse.%I', left('v2_' || part.relname, 63));
            END LOOP;
            UPDATE clubhouse.meta SET value = '3' WHERE key = 'schema_version';
          END IF;
        END $$;
        SELECT clubhouse.add_partition('');
        CREATE INDEX IF NOT EXISTS records_topic ON clubhouse.records (plugin, topic, received_at);
        CREATE TABLE IF NOT EXISTS clubhouse.migrations (
            plugin text NOT NULL, version int NOT NULL, name text NOT NULL, sha256 text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (plugin, version));
        ALTER TABLE clubhouse.records ENABLE ROW LEVEL SECURITY;
        ALTER TABLE clubhouse.sites ENABLE ROW LEVEL SECURITY;
        DROP POLICY IF EXISTS site_inserts_its_own ON clubhouse.records;
        CREATE POLICY site_inserts_its_own ON clubhouse.records FOR INSERT
            WITH CHECK (site_id = (SELECT s.site_id FROM clubhouse.sites s WHERE s.role = current_user));
        DROP POLICY IF EXISTS federation_reads_all ON clubhouse.records;
        CREATE POLICY federation_reads_all ON clubhouse.records FOR SELECT USING (true);
        DROP POLICY IF EXISTS sites_read ON clubhouse.sites;
        CREATE POLICY sites_read ON clubhouse.sites FOR SELECT USING (true);
        DROP POLICY IF EXISTS site_claims_its_own ON clubhouse.sites;
        CREATE POLICY site_claims_its_own ON clubhouse.sites FOR UPDATE USING (role = current_user) WITH CHECK (role = current_user);

        """
        for site in sites {
            let role = self.role(siteID: site)
            sql += """
            DO $$ BEGIN
              IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = \(literal(role))) THEN
                CREATE ROLE \(role) LOGIN;
              END IF;
            END $$;
            INSERT INTO clubhouse.sites(site_id, role) VALUES (\(literal(site)), \(literal(role))) ON CONFLICT (site_id) DO NOTHING;
            GRANT USAGE ON SCHEMA clubhouse TO \(role);
            GRANT SELECT ON clubhouse.meta, clubhouse.migrations, clubhouse.partitions, clubhouse.leaves TO \(role);
            GRANT SELECT, INSERT ON clubhouse.records TO \(role);
            GRANT SELECT, UPDATE (claimed_by, claimed_at) ON clubhouse.sites TO \(role);

            """
        }
        sql += "SELECT clubhouse.add_leaves();\nCOMMIT;\n"
        return sql
    }

    /// The check every push and pull runs first: the schema exists and is not newer than this host.
    public static func checkVersion(_ shell: PostgresShell) throws(FederationError) {
        let rows: [[String]]
        do {
            rows = try shell.query("SELECT value FROM clubhouse.meta WHERE key = 'schema_version'")
        } catch {
            if error.message.contains("does not exist") {
                throw FederationError("\(shell.target.shown) has no clubhouse schema; create it with clubhouse federation init --url … (as the database's owner)")
            }
            throw error
        }
        guard let text = rows.first?.first, let found = Int(text) else {
            throw FederationError("\(shell.target.shown): clubhouse.meta has no schema_version; run clubhouse federation init again")
        }
        if found > version {
            throw FederationError("\(shell.target.shown): the federation's clubhouse schema is version \(found), newer than this host's \(version); upgrade clubhouse before pushing or pulling")
        }
        if found < version {
            throw FederationError("\(shell.target.shown): the federation's clubhouse schema is version \(found), older than this host's \(version); its administrator upgrades it with clubhouse federation init --url … (records and sites are kept)")
        }
    }
}
