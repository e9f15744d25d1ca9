// The host's own commands: each declared with the type a plugin's commands are read into
// (ClubhouseABI's `CommandDeclaration`), beside what runs it. `--help`, argument checking, serve's
// `clubhouse.commands {"plugin": "clubhouse"}` and the overview read these declarations, and a
// built-in command is dispatched here and nowhere else (`BuiltinCatalogue.run`). The implementations
// are in BuiltinCommands.swift and the files it names.

import ClubhouseABI
import ClubhouseHost
import ClubhouseJSON

/// A built-in command: its declaration and what runs it with its checked arguments.
struct BuiltinCommand: Sendable {
    typealias Handler = @Sendable (_ arguments: JSONObject, _ options: GlobalOptions) throws(CLIError) -> Int32

    let declaration: CommandDeclaration
    let run: Handler

    init(_ declaration: CommandDeclaration, run: @escaping Handler) {
        self.declaration = declaration
        self.run = run
    }
}

enum BuiltinCatalogue {
    /// The name built-in commands go by where a plugin alias would stand.
    static let name = "clubhouse"

    /// The first words that start a built-in command. Every plugin command asks whether its first
    /// word is one, so this is written out rather than gathered from the declarations below;
    /// BuiltinCatalogueTests checks that the two agree.
    static let groups: Set<String> = ["plugins", "plugin", "config", "demo", "serve", "routes", "device", "version", "help", "lock", "token", "outbox", "federation"]

    /// The catalogue of the declarations, as the router and help read a plugin's.
    static let catalogue = CommandCatalog(commands: commands.map { CommandSpec($0.declaration) })

    /// Runs the built-in command `name` with its checked arguments: the one place a built-in is dispatched.
    static func run(_ name: String, _ arguments: JSONObject, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        guard let command = commands.first(where: { $0.declaration.name == name }) else {
            throw CLIError(status: .invalidArgument, message: "unknown built-in command '\(name)' (clubhouse --help lists them)")
        }
        return try command.run(arguments, options)
    }

    static let commands: [BuiltinCommand] = [
        BuiltinCommand(CommandDeclaration("plugins list", summary: "List the site's plugins with ids, versions and status", reply: "{site, plugins: [{plugin, id, version, status, error?}]}")) { (a, o) throws(CLIError) in
            try BuiltinCommands.pluginsList(o)
        },
        BuiltinCommand(CommandDeclaration("plugins info", summary: "Show a plugin's descriptor, grants and commands", arguments: [
            .string("plugin", help: "a name from clubhouse plugins list, or an id", required: true, positional: true),
        ])) { (a, o) throws(CLIError) in
            try BuiltinCommands.pluginsInfo(a["plugin"]?.stringValue ?? "", o)
        },
        BuiltinCommand(CommandDeclaration("plugin validate", summary: "Check a plugin file, each check in its own child process (descriptor, describe, create, examples, cancellation, leaks); --site/--config give it its real configuration and isolation", arguments: [
            .path("path", help: "the plugin's .so file", required: true, positional: true),
            ArgumentDeclaration("timeout", .number, help: "seconds each check may take (0-3600)", default: .int(30)),
            .string("only", help: "run only these checks, comma-separated (names from plugin validate list)"),
            .choice("isolation", ["in-process", "process", "sandbox"], help: "run the plugin this way (default: the site's isolation with --site or --config, else in process)"),
        ])) { (a, o) throws(CLIError) in
            try BuiltinCommands.pluginValidate(path: a["path"]?.stringValue ?? "", timeout: a["timeout"]?.doubleValue ?? 30,
                                                   only: a["only"]?.stringValue, isolation: a["isolation"]?.stringValue, o)
        },
        BuiltinCommand(CommandDeclaration("plugin validate list", summary: "List the checks plugin validate runs, by the names --only takes")) { (a, o) throws(CLIError) in
            BuiltinCommands.validateList(o)
        },
        BuiltinCommand(CommandDeclaration("plugin pack", summary: "Package a plugin library with its manifest (id, version, ABI, build, SHA-256, author, license, homepage, requires, minimum host) into one .chpkg file, signed with --sign", arguments: [
            .path("library", help: "the plugin's .so file", required: true, positional: true),
            .path("out", help: "the package to write (e.g. putting-1.1.0.chpkg)", required: true),
            .path("readme", help: "a README to ship in the package"),
            .path("web", help: "the plugin's panel folder (web/) to ship: installed beside the library, served under /ui/<alias>/"),
            .path("federation", help: "the plugin's central SQL folder (federation/postgresql/, NNN_name.sql numbered 1, 2, 3, …) to ship: installed beside the library, applied by clubhouse federation migrate"),
            .string("author", help: "who made it, eg: \"Acme Golf <dev@acme.example>\""),
            .string("license", help: "its license, eg: an SPDX expression such as MIT"),
            .string("homepage", help: "an http(s) URL about it"),
            .string("requires", help: "other plugins it needs, \"ID RANGE; ID RANGE\", eg: \"org.example.notes ^1.0\" (checked at install and load)"),
            .string("min-host", help: "the oldest clubhouse that may run it (default: this one's version), eg: 1.4.0"),
            .path("sign", help: "sign the package with this Ed25519 private key (clubhouse plugin keygen)"),
        ])) { (a, o) throws(CLIError) in
            try BuiltinCommands.pack(a, o)
        },
        BuiltinCommand(CommandDeclaration("plugin keygen", summary: "Make an Ed25519 key pair for signing packages: the private key file (mode 0600) and, printed, the public key sites list under \"publishers\"", arguments: [
            .path("out", help: "the private key file to write (never overwritten)", required: true),
        ])) { (a, o) throws(CLIError) in
            try PackageSigning.keygen(out: a["out"]?.stringValue ?? "", o)
        },
        BuiltinCommand(CommandDeclaration("plugin verify", summary: "Check a package: its archive, every entry's hash, and its signature; says whether the site (--site) trusts the signer", arguments: [
            .path("package", help: "a .chpkg file", required: true, positional: true),
        ])) { (a, o) throws(CLIError) in
            try PackageSigning.verifyCommand(package: a["package"]?.stringValue ?? "", o)
        },
        BuiltinCommand(CommandDeclaration("plugin install", summary: "Verify a package and install it into <data home>/plugins/<id>/<version>/", arguments: [
            .path("package", help: "a .chpkg file made by plugin pack", required: true, positional: true),
        ])) { (a, o) throws(CLIError) in
            try PluginPackages.install(file: a["package"]?.stringValue ?? "", o)
        },
        BuiltinCommand(CommandDeclaration("plugin list", summary: "List plugins: with --installed, the packages in the install tree; without, the site's plugins", arguments: [
            .flag("installed", help: "list the install tree (every id and version)"),
        ])) { (a, o) throws(CLIError) in
            a["installed"]?.boolValue == true ? try PluginPackages.listInstalled(o) : try BuiltinCommands.pluginsList(o)
        },
        BuiltinCommand(CommandDeclaration("plugin remove", summary: "Remove an installed plugin: every version of ID, or one with ID@VERSION; refused while any lock written for this data directory pins it", arguments: [
            .string("plugin", help: "ID or ID@VERSION", required: true, positional: true),
            .flag("force", help: "remove it even though a lock pins it (that site then fails to load until it is locked again)"),
        ])) { (a, o) throws(CLIError) in
            try PluginPackages.remove(a["plugin"]?.stringValue ?? "", force: a["force"]?.boolValue == true, o)
        },
        BuiltinCommand(CommandDeclaration("plugin rollback", summary: "Return the site (--site) to the plugin's previous version: restore the database backup made before the upgrade (the newer data is kept as a backup) and pin that version in plugins.lock until lock --release-pin", arguments: [
            .string("plugin", help: "the plugin's id, or its name at the site", required: true, positional: true),
            .path("backup", help: "restore this backup (a file from plugin backups) instead of the newest of the previous version"),
        ])) { (a, o) throws(CLIError) in
            try RollbackCommand.rollback(a["plugin"]?.stringValue ?? "", backup: a["backup"]?.stringValue, o)
        },
        BuiltinCommand(CommandDeclaration("plugin backups", summary: "List the kept copies of a plugin's database at the site (--site): version, time, size and why each was made", arguments: [
            .string("plugin", help: "the plugin's id, or its name at the site", required: true, positional: true),
        ])) { (a, o) throws(CLIError) in
            try RollbackCommand.listBackups(a["plugin"]?.stringValue ?? "", o)
        },
        BuiltinCommand(CommandDeclaration("plugin adopt", summary: "Give the library the site (--site) now loads for a plugin id its data: a database belongs to the origin (bundled, a publisher's package, a path) of the library that created it, and a library of another origin is refused it until adopted", arguments: [
            .string("plugin", help: "the plugin's id, or its name at the site", required: true, positional: true),
        ])) { (a, o) throws(CLIError) in
            try AdoptCommand.adopt(a["plugin"]?.stringValue ?? "", o)
        },
        BuiltinCommand(CommandDeclaration("plugin new", summary: "Write a new plugin project (C or Swift, against the SDK installed beside clubhouse) that builds, validates and runs as written", arguments: [
            .string("name", help: "the plugin's name: lowercase letters, digits and -", required: true, positional: true),
            .choice("lang", ["c", "swift"], help: "the language of the project", default: "c"),
            .path("dir", help: "where to create NAME/ (default: the current directory)"),
            .path("sdk", help: "for --lang swift: the Swift SDK to build against (default: the one installed beside clubhouse, PREFIX/share/clubhouse/PluginSDK; a Clubhouse checkout works too)"),
        ])) { (a, o) throws(CLIError) in
            try PluginNew.run(name: a["name"]?.stringValue ?? "", lang: a["lang"]?.stringValue ?? "c", dir: a["dir"]?.stringValue,
                                     sdk: a["sdk"]?.stringValue, o)
        },
        BuiltinCommand(CommandDeclaration("lock", summary: "Pin every site's plugins (id, version, SHA-256 of the library) in plugins.lock beside plugins.json; every load is then checked against it. A pin made by plugin rollback is kept until released", arguments: [
            .flag("check", help: "write nothing: exit 1 when plugins.lock is missing or differs from what the sites load now (a rollback pin is reported as held, not stale)"),
            .string("release-pin", help: "release the rollback pin of this plugin (id or name; with --site, at that site only): the site rolls forward to what it would load"),
            .choice("data", ["newer", "current"], help: "when a released pin rolls a site forward: newer restores the newer version's data kept at the rollback (the live database is kept as a backup); current keeps the live database for the newer version to migrate", default: "newer"),
        ])) { (a, o) throws(CLIError) in
            try LockCommand.lock(check: a["check"]?.boolValue == true, release: a["release-pin"]?.stringValue, data: a["data"]?.stringValue, o)
        },
        BuiltinCommand(CommandDeclaration("config validate", summary: "Check a plugins.json and report every problem with file:line:column: the file, each plugin's config against its schema, and each enabled plugin created (in a child process, on a scratch data directory)", arguments: [
            .path("file", help: "the file to check (default: --config or the embedded copy)", positional: true),
            ArgumentDeclaration("timeout", .number, help: "seconds each plugin's create may take (0-3600)", default: .int(30)),
        ])) { (a, o) throws(CLIError) in
            try BuiltinCommands.configValidate(a, o)
        },
        BuiltinCommand(CommandDeclaration("config schema", summary: "Print the JSON Schema of plugins.json")) { (a, o) throws(CLIError) in
            BuiltinCommands.configSchema()
        },
        BuiltinCommand(CommandDeclaration("demo", summary: "Run every plugin's demo on bundled sample data and write what they make to DIR", arguments: [
            .path("out", help: "output folder (default: ./clubhouse-demo)"),
        ], longRunning: true)) { (a, o) throws(CLIError) in
            try BuiltinCommands.demo(out: a["out"]?.stringValue, o)
        },
        BuiltinCommand(CommandDeclaration("serve", summary: "Serve JSON-RPC 2.0 (one JSON object per line) on stdio or a Unix socket, and HTTP/1.1 (--http: the plugins' routes, Host/HTTP.md)", arguments: [
            .path("socket", help: "listen on this Unix socket instead of stdio"),
            .integer("max-connections", help: "clients served at once on the socket (default 256)"),
            .integer("write-timeout-ms", help: "drop a client whose replies make no progress this long (default 10000)"),
            .integer("workers", help: "threads running requests (default: twice the cores)"),
            .integer("max-event-backlog", help: "bytes a JSON-RPC subscriber (clubhouse.subscribe) may leave unread before its subscription ends (default 262144)"),
            .string("http", help: "serve HTTP on ADDR:PORT (127.0.0.1:8080; port 0 picks one and says which); loopback only unless --allow-remote"),
            .flag("allow-remote", help: "let --http listen on an address other machines reach (put a TLS proxy in front: docs/reverse-proxy.md)"),
            .list("trusted-proxy", help: "proxies (ADDR or ADDR/PREFIX) whose X-Forwarded-For and X-Forwarded-Proto are believed"),
            .list("http-allowed-host", help: "a name (club.example.org) requests may carry in Host besides localhost and IP addresses, else 421 (DNS rebinding); repeatable"),
            .path("ui-dir", help: "serve the panels' files from DIR/<plugin>/ and DIR/_/ (default: beside each plugin's library)"),
            .integer("http-max-connections", help: "HTTP clients at once; at the bound the idlest is closed for a newcomer (default 1024)"),
            .integer("http-max-request-line", help: "bytes of a request line, else 414 (default 8192)"),
            .integer("http-max-header-bytes", help: "bytes of a request's head, else 431 (default 32768)"),
            .integer("http-max-headers", help: "header lines of a request, else 431 (default 100)"),
            .integer("http-max-body", help: "bytes of a body where a route sets no max_body, else 413 (default 1048576)"),
            .integer("http-max-body-memory", help: "bytes of request bodies held in memory at once across clients, else 503 (default 4 x the largest route body, at least 64 MiB)"),
            .integer("http-header-timeout-ms", help: "time for a request's head to arrive, else 408 (default 10000)"),
            .integer("http-body-timeout-ms", help: "time for a body to arrive, plus 1 s per 16 KiB, else 408 (default 10000)"),
            .integer("http-idle-timeout-ms", help: "a kept-alive connection with no request is closed after this (default 30000)"),
            .integer("http-send-timeout-ms", help: "a client that takes longer to read a response is dropped (default 60000)"),
            .integer("http-heartbeat-ms", help: "an event stream quiet that long gets a comment line (default 15000)"),
            .integer("http-max-event-backlog", help: "bytes of events a stream's client may leave unread before it is dropped (default 262144)"),
            .integer("http-idempotency-bytes", help: "bytes of Idempotency-Key entries and their kept answers, kept a day; one credential holds at most a quarter (its own oldest answers are dropped first, their keys kept); no key is forgotten before its day: when its keys are full, a new keyed write gets 503 (default 67108864)"),
            .integer("http-reply-cache-bytes", help: "bytes of kept replies of reads their plugin declares \"cache\" for, answered again without the plugin; 0 keeps none (default 16777216)"),
        ])) { (a, o) throws(CLIError) in
            try JSONRPCServer.run(ServeOptions(a), session: Session(options: o))
        },
        BuiltinCommand(CommandDeclaration("routes", summary: "List the site's HTTP routes (clubhouse serve --http): method, path, plugin and command, read or write, public", reply: "{site, routes: [{method, path, plugin, command, access, public, mountedAt}], notMounted: [{plugin, routes}], unavailable: [{plugin, error}], problems, warnings}")) { (a, o) throws(CLIError) in
            try RoutesCommand.run(o)
        },
        BuiltinCommand(CommandDeclaration("outbox", summary: "List the records the site's plugins published that wait to be shipped to its federation (oldest first): plugin, sequence, topic, key, size, SHA-256", arguments: [
            .integer("limit", help: "show at most this many records (1-100000)", default: 50),
        ], reply: "{site, federation, waiting, plugins: [{plugin, waiting, lastSeq, shippedSeq}], records: [{seq, plugin, version, topic, key, sha256, bytes, publishedAt}]}")) { (a, o) throws(CLIError) in
            try FederationOutbox.run(limit: a["limit"]?.intValue ?? 50, o)
        },
        BuiltinCommand(CommandDeclaration("federation init", summary: "Create the clubhouse schema in a PostgreSQL database (records partitioned by plugin, a role per site with row-level security); run as the database's owner", arguments: [
            .string("url", help: "postgresql://… or a pg_service.conf name; the password comes from ~/.pgpass or PGPASSFILE", required: true),
            .list("sites", help: "the federation site ids to create roles for, comma-separated, eg: club-a,club-b"),
        ], reply: "{federation, schemaVersion, sites: [{siteID, role}]}")) { (a, o) throws(CLIError) in
            try FederationCommands.initialize(url: a["url"]?.stringValue ?? "", sites: (a["sites"]?.arrayValue ?? []).compactMap(\.stringValue), o)
        },
        BuiltinCommand(CommandDeclaration("federation push", summary: "Ship what waits in the site's outbox (--site) to its federation through psql: in order, in batches, idempotently; what fails waits for the next push", reply: "{site, siteID, shipped, batches, plugins: [{plugin, shipped}]}")) { (a, o) throws(CLIError) in
            try FederationCommands.push(o)
        },
        BuiltinCommand(CommandDeclaration("federation migrate", summary: "Apply plugins' central SQL (federation/postgresql/NNN_name.sql, in order, each once) to the federation; run as the database's owner. Without --dir: what each plugin of the site (--site) ships beside its library", arguments: [
            .string("url", help: "postgresql://… or a pg_service.conf name", required: true),
            .string("plugin", help: "only this plugin (its id or alias); with --dir, the id of the plugin whose SQL it holds, eg: org.clubhouse.scorecard"),
            .path("dir", help: "a plugin's federation/postgresql folder (default: the one installed beside each plugin's library)"),
        ], reply: "{federation, plugin, applied} with --dir; {federation, plugins: [{plugin, dir, applied}]} without")) { (a, o) throws(CLIError) in
            try FederationCommands.migrate(url: a["url"]?.stringValue ?? "", plugin: a["plugin"]?.stringValue ?? "",
                                                  dir: a["dir"]?.stringValue ?? "", o)
        },
        BuiltinCommand(CommandDeclaration("federation pull", summary: "Bring back what the site's plugins subscribe to (their catalogue's \"pulls\": eg the scorecard's index of record) and hand it to each plugin's receive command", reply: "{site, siteID, received: [{plugin, view, rows, reply}]}")) { (a, o) throws(CLIError) in
            try FederationCommands.pull(o)
        },
        BuiltinCommand(CommandDeclaration("token create", summary: "Make a device token for the site (--site) that may call its HTTP API: printed once, stored only as its SHA-256", arguments: [
            .string("name", help: "who holds it, unique at the site, eg: \"Ann's phone\"", required: true),
            .string("scope", help: "ALIAS:read, ALIAS:write (includes read) or ALIAS:*, comma-separated, eg: putting:read,scorecard:write", required: true),
        ])) { (a, o) throws(CLIError) in
            try TokenCommands.create(name: a["name"]?.stringValue ?? "", scope: a["scope"]?.stringValue ?? "", o)
        },
        BuiltinCommand(CommandDeclaration("token list", summary: "List the site's device tokens, browser sessions and waiting pairing codes: name, scopes, created, last used (never a secret)")) { (a, o) throws(CLIError) in
            try TokenCommands.list(o)
        },
        BuiltinCommand(CommandDeclaration("token revoke", summary: "Revoke a device token, browser session or pairing code of the site, by name or id", arguments: [
            .string("name", help: "its NAME or ID, from clubhouse token list", required: true, positional: true),
        ])) { (a, o) throws(CLIError) in
            try TokenCommands.revoke(a["name"]?.stringValue ?? "", o)
        },
        BuiltinCommand(CommandDeclaration("token pair", summary: "Make a one-time pairing code (and an SVG QR code of the pairing URL) with which one browser gets a session cookie", arguments: [
            .string("scope", help: "ALIAS:read, ALIAS:write or ALIAS:*, comma-separated, as for token create", required: true),
            .string("name", help: "the browser session's name (default: browser-ID)"),
            .string("url", help: "the address a browser opens to reach the host (default: http://127.0.0.1:8080)"),
            .path("svg", help: "write a QR code of the pairing URL to this SVG file"),
            .integer("minutes", help: "how long the code is valid, 1-60", default: 10),
        ])) { (a, o) throws(CLIError) in
            try TokenCommands.pair(scope: a["scope"]?.stringValue ?? "", name: a["name"]?.stringValue, url: a["url"]?.stringValue,
                                   svg: a["svg"]?.stringValue, minutes: a["minutes"]?.intValue ?? 10, o)
        },
        BuiltinCommand(CommandDeclaration("device simulate", summary: "Run a protocol v0.3 ball machine on tcp:HOST:PORT or unix:PATH", arguments: [
            .choice("kind", ["ballmachine"], help: "the device to simulate", required: true, positional: true),
            .string("listen", help: "tcp:127.0.0.1:PORT or unix:PATH", required: true),
            .choice("checksum", ["xor", "modbus"], help: "check byte of each frame"),
            .number("reject-rate", help: "share of frames answered NAK (0-1)"),
            .integer("latency", help: "milliseconds before each answer (0-10000)"),
        ])) { (a, o) throws(CLIError) in
            try BuiltinCommands.deviceSimulate(a, o)
        },
        BuiltinCommand(CommandDeclaration("version", summary: "Print the version of clubhouse, its plugin ABI and build (also -V, --version)")) { (a, o) throws(CLIError) in
            BuiltinCommands.version(o)
        },
        BuiltinCommand(CommandDeclaration("help", summary: "Help for clubhouse, a built-in command, a plugin or a plugin's command", arguments: [
            .string("topic", help: "e.g. putting, or putting bestline, or plugins list", positional: true),
        ])) { (a, o) throws(CLIError) in
            try CommandLineTool.help(topic: (a["topic"]?.stringValue ?? "").split(separator: " ").map(String.init), o)
        },
    ]
}
