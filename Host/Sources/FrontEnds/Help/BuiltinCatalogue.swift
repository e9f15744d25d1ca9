// The host's own commands, declared in the same catalogue form a plugin's `describe` returns, so
// `--help`, argument checking, serve's `clubhouse.commands {"plugin": "clubhouse"}` and the overview
// all read one declaration. `BuiltinCommands` implements them.

import ClubhousePlatform
import ClubhouseHost
import ClubhouseJSON

enum BuiltinCatalogue {
    /// The name built-in commands go by where a plugin alias would stand.
    static let name = "clubhouse"

    /// The first words that start a built-in command. Every plugin command asks whether its first
    /// word is one, so this is written out rather than read from the parsed declaration (parsing
    /// it cost about 0.4 ms of each `clubhouse <plugin> …`); BuiltinCatalogueTests checks that the
    /// two agree.
    static let groups: Set<String> = ["plugins", "plugin", "config", "demo", "serve", "routes", "device", "version", "help", "lock", "token", "outbox", "federation"]

    static let json = #"""
    {"commands": [
      {"name": "plugins list", "summary": "List the site's plugins with ids, versions and status",
       "reply": "{site, plugins: [{plugin, id, version, status, error?}]}"},
      {"name": "plugins info", "summary": "Show a plugin's descriptor, grants and commands",
       "arguments": [{"name": "plugin", "type": "string", "positional": true, "required": true,
                      "help": "a name from clubhouse plugins list, or an id"}]},
      {"name": "plugin validate", "summary": "Check a plugin file, each check in its own child process (descriptor, describe, create, examples, cancellation, leaks); --site/--config give it its real configuration and isolation",
       "arguments": [{"name": "path", "type": "path", "positional": true, "required": true, "help": "the plugin's .so file"},
                     {"name": "timeout", "type": "number", "default": 30, "help": "seconds each check may take (0-3600)"},
                     {"name": "only", "type": "string", "help": "run only these checks, comma-separated (names from plugin validate list)"},
                     {"name": "isolation", "type": "choice", "choices": ["in-process", "process", "sandbox"], "help": "run the plugin this way (default: the site's isolation with --site or --config, else in process)"}]},
      {"name": "plugin validate list", "summary": "List the checks plugin validate runs, by the names --only takes"},
      {"name": "plugin pack", "summary": "Package a plugin library with its manifest (id, version, ABI, build, SHA-256, author, license, homepage, requires, minimum host) into one .chpkg file, signed with --sign",
       "arguments": [{"name": "library", "type": "path", "positional": true, "required": true, "help": "the plugin's .so file"},
                     {"name": "out", "type": "path", "required": true, "help": "the package to write (e.g. putting-1.1.0.chpkg)"},
                     {"name": "readme", "type": "path", "help": "a README to ship in the package"},
                     {"name": "web", "type": "path", "help": "the plugin's panel folder (web/) to ship: installed beside the library, served under /ui/<alias>/"},
                     {"name": "author", "type": "string", "help": "who made it, eg: \"Acme Golf <dev@acme.example>\""},
                     {"name": "license", "type": "string", "help": "its license, eg: an SPDX expression such as MIT"},
                     {"name": "homepage", "type": "string", "help": "an http(s) URL about it"},
                     {"name": "requires", "type": "string", "help": "other plugins it needs, \"ID RANGE; ID RANGE\", eg: \"org.example.notes ^1.0\" (checked at install and load)"},
                     {"name": "min-host", "type": "string", "help": "the oldest clubhouse that may run it (default: this one's version), eg: 1.4.0"},
                     {"name": "sign", "type": "path", "help": "sign the package with this Ed25519 private key (clubhouse plugin keygen)"}]},
      {"name": "plugin keygen", "summary": "Make an Ed25519 key pair for signing packages: the private key file (mode 0600) and, printed, the public key sites list under \"publishers\"",
       "arguments": [{"name": "out", "type": "path", "required": true, "help": "the private key file to write (never overwritten)"}]},
      {"name": "plugin verify", "summary": "Check a package: its archive, every entry's hash, and its signature; says whether the site (--site) trusts the signer",
       "arguments": [{"name": "package", "type": "path", "positional": true, "required": true, "help": "a .chpkg file"}]},
      {"name": "plugin install", "summary": "Verify a package and install it into <data home>/plugins/<id>/<version>/",
       "arguments": [{"name": "package", "type": "path", "positional": true, "required": true, "help": "a .chpkg file made by plugin pack"}]},
      {"name": "plugin list", "summary": "List plugins: with --installed, the packages in the install tree; without, the site's plugins",
       "arguments": [{"name": "installed", "type": "flag", "help": "list the install tree (every id and version)"}]},
      {"name": "plugin remove", "summary": "Remove an installed plugin: every version of ID, or one with ID@VERSION; refused while any lock written for this data directory pins it",
       "arguments": [{"name": "plugin", "type": "string", "positional": true, "required": true, "help": "ID or ID@VERSION"},
                     {"name": "force", "type": "flag", "help": "remove it even though a lock pins it (that site then fails to load until it is locked again)"}]},
      {"name": "plugin rollback", "summary": "Return the site (--site) to the plugin's previous version: restore the database backup made before the upgrade (the newer data is kept as a backup) and pin that version in plugins.lock until lock --release-pin",
       "arguments": [{"name": "plugin", "type": "string", "positional": true, "required": true, "help": "the plugin's id, or its name at the site"},
                     {"name": "backup", "type": "path", "help": "restore this backup (a file from plugin backups) instead of the newest of the previous version"}]},
      {"name": "plugin backups", "summary": "List the kept copies of a plugin's database at the site (--site): version, time, size and why each was made",
       "arguments": [{"name": "plugin", "type": "string", "positional": true, "required": true, "help": "the plugin's id, or its name at the site"}]},
      {"name": "plugin new", "summary": "Write a new plugin project (C or Swift, against the SDK installed beside clubhouse) that builds, validates and runs as written",
       "arguments": [{"name": "name", "type": "string", "positional": true, "required": true, "help": "the plugin's name: lowercase letters, digits and -"},
                     {"name": "lang", "type": "choice", "choices": ["c", "swift"], "default": "c", "help": "the language of the project"},
                     {"name": "dir", "type": "path", "help": "where to create NAME/ (default: the current directory)"},
                     {"name": "sdk", "type": "path", "help": "for --lang swift: the Swift SDK to build against (default: the one installed beside clubhouse, PREFIX/share/clubhouse/PluginSDK; a Clubhouse checkout works too)"}]},
      {"name": "lock", "summary": "Pin every site's plugins (id, version, SHA-256 of the library) in plugins.lock beside plugins.json; every load is then checked against it. A pin made by plugin rollback is kept until released",
       "arguments": [{"name": "check", "type": "flag", "help": "write nothing: exit 1 when plugins.lock is missing or differs from what the sites load now (a rollback pin is reported as held, not stale)"},
                     {"name": "release-pin", "type": "string", "help": "release the rollback pin of this plugin (id or name; with --site, at that site only): the site rolls forward to what it would load"},
                     {"name": "data", "type": "choice", "choices": ["newer", "current"], "default": "newer", "help": "when a released pin rolls a site forward: newer restores the newer version's data kept at the rollback (the live database is kept as a backup); current keeps the live database for the newer version to migrate"}]},
      {"name": "config validate", "summary": "Check a plugins.json and report every problem with file:line:column: the file, each plugin's config against its schema, and each enabled plugin created (in a child process, on a scratch data directory)",
       "arguments": [{"name": "file", "type": "path", "positional": true, "help": "the file to check (default: --config or the embedded copy)"},
                     {"name": "timeout", "type": "number", "default": 30, "help": "seconds each plugin's create may take (0-3600)"}]},
      {"name": "config schema", "summary": "Print the JSON Schema of plugins.json"},
      {"name": "demo", "summary": "Run every plugin's demo on bundled sample data and write what they make to DIR",
       "long_running": true,
       "arguments": [{"name": "out", "type": "path", "help": "output folder (default: ./clubhouse-demo)"}]},
      {"name": "serve", "summary": "Serve JSON-RPC 2.0 (one JSON object per line) on stdio or a Unix socket, and HTTP/1.1 (--http: the plugins' routes, Host/HTTP.md)",
       "arguments": [{"name": "socket", "type": "path", "help": "listen on this Unix socket instead of stdio"},
                     {"name": "max-connections", "type": "integer", "help": "clients served at once on the socket (default 256)"},
                     {"name": "write-timeout-ms", "type": "integer", "help": "drop a client whose replies make no progress this long (default 10000)"},
                     {"name": "workers", "type": "integer", "help": "threads running requests (default: twice the cores)"},
                     {"name": "max-event-backlog", "type": "integer", "help": "bytes a JSON-RPC subscriber (clubhouse.subscribe) may leave unread before its subscription ends (default 262144)"},
                     {"name": "http", "type": "string", "help": "serve HTTP on ADDR:PORT (127.0.0.1:8080; port 0 picks one and says which); loopback only unless --allow-remote"},
                     {"name": "allow-remote", "type": "flag", "help": "let --http listen on an address other machines reach (put a TLS proxy in front: docs/reverse-proxy.md)"},
                     {"name": "trusted-proxy", "type": "list", "help": "proxies (ADDR or ADDR/PREFIX) whose X-Forwarded-For and X-Forwarded-Proto are believed"},
                     {"name": "http-allowed-host", "type": "list", "help": "a name (club.example.org) requests may carry in Host besides localhost and IP addresses, else 421 (DNS rebinding); repeatable"},
                     {"name": "ui-dir", "type": "path", "help": "serve the panels' files from DIR/<plugin>/ and DIR/_/ (default: beside each plugin's library)"},
                     {"name": "http-max-connections", "type": "integer", "help": "HTTP clients at once; at the bound the idlest is closed for a newcomer (default 1024)"},
                     {"name": "http-max-request-line", "type": "integer", "help": "bytes of a request line, else 414 (default 8192)"},
                     {"name": "http-max-header-bytes", "type": "integer", "help": "bytes of a request's head, else 431 (default 32768)"},
                     {"name": "http-max-headers", "type": "integer", "help": "header lines of a request, else 431 (default 100)"},
                     {"name": "http-max-body", "type": "integer", "help": "bytes of a body where a route sets no max_body, else 413 (default 1048576)"},
                     {"name": "http-max-body-memory", "type": "integer", "help": "bytes of request bodies held in memory at once across clients, else 503 (default 4 x the largest route body, at least 64 MiB)"},
                     {"name": "http-header-timeout-ms", "type": "integer", "help": "time for a request's head to arrive, else 408 (default 10000)"},
                     {"name": "http-body-timeout-ms", "type": "integer", "help": "time for a body to arrive, plus 1 s per 16 KiB, else 408 (default 10000)"},
                     {"name": "http-idle-timeout-ms", "type": "integer", "help": "a kept-alive connection with no request is closed after this (default 30000)"},
                     {"name": "http-send-timeout-ms", "type": "integer", "help": "a client that takes longer to read a response is dropped (default 60000)"},
                     {"name": "http-heartbeat-ms", "type": "integer", "help": "an event stream quiet that long gets a comment line (default 15000)"},
                     {"name": "http-max-event-backlog", "type": "integer", "help": "bytes of events a stream's client may leave unread before it is dropped (default 262144)"}]},
      {"name": "routes", "summary": "List the site's HTTP routes (clubhouse serve --http): method, path, plugin and command, read or write, public",
       "reply": "{site, routes: [{method, path, plugin, command, access, public, mountedAt}], notMounted: [{plugin, routes}], unavailable: [{plugin, error}], problems, warnings}"},
      {"name": "outbox", "summary": "List the records the site's plugins published that wait to be shipped to its federation (oldest first): plugin, sequence, topic, key, size, SHA-256",
       "arguments": [{"name": "limit", "type": "integer", "default": 50, "help": "show at most this many records (1-100000)"}],
       "reply": "{site, federation, waiting, plugins: [{plugin, waiting, lastSeq, shippedSeq}], records: [{seq, plugin, version, topic, key, sha256, bytes, publishedAt}]}"},
      {"name": "federation init", "summary": "Create the clubhouse schema in a PostgreSQL database (records partitioned by plugin, a role per site with row-level security); run as the database's owner",
       "arguments": [{"name": "url", "type": "string", "required": true, "help": "postgresql://… or a pg_service.conf name; the password comes from ~/.pgpass or PGPASSFILE"},
                     {"name": "sites", "type": "list", "help": "the federation site ids to create roles for, comma-separated, eg: club-a,club-b"}],
       "reply": "{federation, schemaVersion, sites: [{siteID, role}]}"},
      {"name": "federation push", "summary": "Ship what waits in the site's outbox (--site) to its federation through psql: in order, in batches, idempotently; what fails waits for the next push",
       "reply": "{site, siteID, shipped, batches, plugins: [{plugin, shipped}]}"},
      {"name": "federation migrate", "summary": "Apply plugins' central SQL (federation/postgresql/NNN_name.sql, in order, each once) to the federation; run as the database's owner. Without --dir: what each plugin of the site (--site) ships beside its library",
       "arguments": [{"name": "url", "type": "string", "required": true, "help": "postgresql://… or a pg_service.conf name"},
                     {"name": "plugin", "type": "string", "help": "only this plugin (its id or alias); with --dir, the id of the plugin whose SQL it holds, eg: org.clubhouse.scorecard"},
                     {"name": "dir", "type": "path", "help": "a plugin's federation/postgresql folder (default: the one installed beside each plugin's library)"}],
       "reply": "{federation, plugin, applied} with --dir; {federation, plugins: [{plugin, dir, applied}]} without"},
      {"name": "federation pull", "summary": "Bring back what the site's plugins subscribe to (their catalogue's \"pulls\": eg the scorecard's index of record) and hand it to each plugin's receive command",
       "reply": "{site, siteID, received: [{plugin, view, rows, reply}]}"},
      {"name": "token create", "summary": "Make a device token for the site (--site) that may call its HTTP API: printed once, stored only as its SHA-256",
       "arguments": [{"name": "name", "type": "string", "required": true, "help": "who holds it, unique at the site, eg: \"Ann's phone\""},
                     {"name": "scope", "type": "string", "required": true, "help": "ALIAS:read, ALIAS:write (includes read) or ALIAS:*, comma-separated, eg: putting:read,scorecard:write"}]},
      {"name": "token list", "summary": "List the site's device tokens, browser sessions and waiting pairing codes: name, scopes, created, last used (never a secret)"},
      {"name": "token revoke", "summary": "Revoke a device token, browser session or pairing code of the site, by name or id",
       "arguments": [{"name": "name", "type": "string", "positional": true, "required": true, "help": "its NAME or ID, from clubhouse token list"}]},
      {"name": "token pair", "summary": "Make a one-time pairing code (and an SVG QR code of the pairing URL) with which one browser gets a session cookie",
       "arguments": [{"name": "scope", "type": "string", "required": true, "help": "ALIAS:read, ALIAS:write or ALIAS:*, comma-separated, as for token create"},
                     {"name": "name", "type": "string", "help": "the browser session's name (default: browser-ID)"},
                     {"name": "url", "type": "string", "help": "the address a browser opens to reach the host (default: http://127.0.0.1:8080)"},
                     {"name": "svg", "type": "path", "help": "write a QR code of the pairing URL to this SVG file"},
                     {"name": "minutes", "type": "integer", "default": 10, "help": "how long the code is valid, 1-60"}]},
      {"name": "device simulate", "summary": "Run a protocol v0.3 ball machine on tcp:HOST:PORT or unix:PATH",
       "arguments": [{"name": "kind", "type": "choice", "choices": ["ballmachine"], "positional": true, "required": true,
                      "help": "the device to simulate"},
                     {"name": "listen", "type": "string", "required": true, "help": "tcp:127.0.0.1:PORT or unix:PATH"},
                     {"name": "checksum", "type": "choice", "choices": ["xor", "modbus"], "help": "check byte of each frame"},
                     {"name": "reject-rate", "type": "number", "help": "share of frames answered NAK (0-1)"},
                     {"name": "latency", "type": "integer", "help": "milliseconds before each answer (0-10000)"}]},
      {"name": "version", "summary": "Print the version of clubhouse, its plugin ABI and build (also -V, --version)"},
      {"name": "help", "summary": "Help for clubhouse, a built-in command, a plugin or a plugin's command",
       "arguments": [{"name": "topic", "type": "string", "positional": true,
                      "help": "e.g. putting, or putting bestline, or plugins list"}]}
    ]}
    """#

    static let catalogue: CommandCatalog = {
        switch CommandCatalog.parse(Array(json.utf8), plugin: name) {
        case .success(let c): return c
        // The declaration above is part of the program; a test parses it.
        case .failure(let e): fatalError("the built-in command catalogue is invalid: \(e)")
        }
    }()
}
