// The `clubhouse` command line: global options, built-in commands, and
// `clubhouse <plugin> <command> [--arg value …]` routed to plugins. Exit codes: 0 ok, 1 failure,
// 2 usage error.

import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

public enum CommandLineTool {
    static let builtins: [(String, String)] = [
        ("plugins list", "List the site's plugins with ids, versions and status"),
        ("plugins info PLUGIN", "Show a plugin's descriptor, grants and commands"),
        ("plugin validate PATH.so", "Check a plugin file in a child process (descriptor, commands, create/destroy)"),
        ("config validate [FILE]", "Check a plugins.json and report every problem with file:line:column"),
        ("config schema", "Print the JSON Schema of plugins.json"),
        ("demo [--out DIR]", "Run every plugin's demo on bundled sample data and write what they make to DIR"),
        ("serve [--socket PATH]", "Serve JSON-RPC 2.0 (one JSON object per line) on stdio or a Unix socket"),
        ("device simulate ballmachine --listen ADDR", "Run a protocol v0.3 ball machine on tcp:HOST:PORT or unix:PATH"),
    ]

    /// Runs the tool and returns the process exit code.
    public static func run(_ arguments: [String]) -> Int32 {
        // A closed pipe (a reader that went away, a dead runner) is an error to handle, not death.
        signal(SIGPIPE, SIG_IGN)
        // Internal modes used by the host itself (child processes).
        if let first = arguments.first, first.hasPrefix("__") {
            return InternalModes.run(first, Array(arguments.dropFirst()))
        }
        let options: GlobalOptions
        do {
            options = try GlobalOptions.parse(arguments)
        } catch {
            return fail(CLIError(status: .invalidArgument, message: error.message), json: arguments.contains("--json"))
        }
        do {
            return try dispatch(options)
        } catch {
            return fail(error, json: options.json)
        }
    }

    static func fail(_ error: CLIError, json: Bool) -> Int32 {
        if json && !error.reported {
            let document: JSONValue = ["error": ["status": .string(error.status.name), "message": .string(error.message)]]
            StandardStreams.writeOutput(JSONWriter.pretty(document) + "\n")
        }
        StandardStreams.writeError("clubhouse: \(error.message)\n")
        return error.status.exitCode
    }

    static func dispatch(_ options: GlobalOptions) throws(CLIError) -> Int32 {
        let words = options.words
        if options.version && words.isEmpty {
            let text = "clubhouse \(ClubhouseVersion.string) (plugin ABI \(BuildFingerprint.abi), Swift \(BuildFingerprint.swiftCompiler), \(BuildFingerprint.target))"
            if options.json {
                StandardStreams.writeOutput(JSONWriter.pretty(["version": .string(ClubhouseVersion.string),
                                                               "abi": .string(BuildFingerprint.abi),
                                                               "build": .string(BuildFingerprint.swift)]) + "\n")
            } else {
                StandardStreams.writeOutput(text + "\n")
            }
            return 0
        }
        guard let first = words.first else {
            if options.help {
                let session = try Session(options: options)
                StandardStreams.writeOutput(HelpText.overview(session: session))
                return 0
            }
            throw CLIError(status: .invalidArgument, message: "no command given; try clubhouse --help")
        }
        switch first {
        case "plugins":
            return try BuiltinCommands.plugins(Array(words.dropFirst()), options)
        case "plugin":
            return try BuiltinCommands.plugin(Array(words.dropFirst()), options)
        case "config":
            return try BuiltinCommands.config(Array(words.dropFirst()), options)
        case "demo":
            return try BuiltinCommands.demo(Array(words.dropFirst()), options)
        case "device":
            return try BuiltinCommands.device(Array(words.dropFirst()), options)
        case "serve":
            return try BuiltinCommands.serve(Array(words.dropFirst()), options)
        case "help":
            let session = try Session(options: options)
            StandardStreams.writeOutput(HelpText.overview(session: session))
            return 0
        default:
            let session = try Session(options: options)
            return try runPluginCommand(alias: first, words: Array(words.dropFirst()), session: session)
        }
    }

    static func runPluginCommand(alias: String, words: [String], session: Session) throws(CLIError) -> Int32 {
        let options = session.options
        let plugin: ResolvedPlugin
        switch session.runtime.resolve(alias) {
        case .success(let p): plugin = p
        case .failure(let e): throw CLIError(status: e.status, message: e.message)
        }
        if words.isEmpty || (options.help && words.allSatisfy({ $0.hasPrefix("-") })) {
            if options.help || words.isEmpty {
                StandardStreams.writeOutput(HelpText.plugin(plugin))
                if words.isEmpty && !options.help {
                    throw CLIError(status: .invalidArgument, message: "'\(alias)' needs a command (listed above)")
                }
                return 0
            }
        }
        let command: CommandSpec
        let rest: [String]
        switch ArgumentParser.selectCommand(words, in: plugin.catalogue, plugin: alias) {
        case .success(let (c, r)): (command, rest) = (c, r)
        case .failure(let e):
            if options.help {
                StandardStreams.writeOutput(HelpText.plugin(plugin))
                return 0
            }
            throw CLIError(status: .invalidArgument, message: e.message)
        }
        if options.help {
            StandardStreams.writeOutput(HelpText.command(command, plugin: alias))
            return 0
        }
        let arguments: JSONObject
        do {
            arguments = try ArgumentParser.parse(rest, for: command, plugin: alias)
        } catch {
            throw CLIError(status: .invalidArgument, message: error.message)
        }
        let outcome = session.call(alias: alias, command: command, arguments: arguments)
        return try session.report(outcome, alias: alias, command: command.name)
    }
}

/// One CLI run: options, configuration, site, and its runtime.
final class Session {
    let options: GlobalOptions
    let configuration: SiteConfiguration
    let site: Site
    let dataDirectory: String
    let runtime: SiteRuntime
    let log: LogBroker

    init(options: GlobalOptions, dataDirectoryOverride: String? = nil) throws(CLIError) {
        self.options = options
        configuration = try options.loadConfiguration()
        let siteName = options.site ?? configuration.defaultSite
        do {
            site = try configuration.site(named: siteName)
        } catch {
            throw CLIError(status: .invalidArgument, message: "\(error.message); choose one with --site or CLUBHOUSE_SITE")
        }
        dataDirectory = dataDirectoryOverride ?? options.resolveDataDirectory(configuration)
        log = LogBroker(verbosity: options.verbosity, color: options.color && StandardStreams.errorIsTerminal)
        runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: dataDirectory, log: log)
    }

    deinit { runtime.shutdown() }

    var showsProgress: Bool { Session.wouldShowProgress(options: options, terminal: StandardStreams.errorIsTerminal) }

    /// A progress bar goes to a terminal only, and never with --quiet or --json.
    static func wouldShowProgress(options: GlobalOptions, terminal: Bool) -> Bool {
        !options.quiet && !options.json && terminal
    }

    /// Runs a command with progress on a terminal and Ctrl-C wired to cancellation.
    func call(alias: String, command: CommandSpec, arguments: JSONObject) -> CallOutcome {
        var flags: UInt32 = 0
        if options.json { flags |= UInt32(CLUBHOUSE_CALL_MACHINE_OUTPUT) }
        if StandardStreams.outputIsTerminal && StandardStreams.errorIsTerminal { flags |= UInt32(CLUBHOUSE_CALL_INTERACTIVE) }
        let progress: any ProgressSink = showsProgress && command.longRunning ? TerminalProgressBar() : SilentProgress()
        let context = CallContext(flags: flags, progress: progress, alias: alias)
        let interrupt = InterruptHandler { [log] in
            log.warning("interrupted; asking '\(alias)' to stop (press Ctrl-C again to quit at once)")
            context.cancel()
        }
        defer { interrupt.remove() }
        return runtime.call(alias: alias, command: command.name, arguments: arguments, context: context)
    }

    /// Prints an outcome and returns the exit code (or throws the failure).
    func report(_ outcome: CallOutcome, alias: String, command: String) throws(CLIError) -> Int32 {
        guard outcome.status == .ok else {
            throw CLIError(status: outcome.status, message: outcome.message)
        }
        if options.json {
            StandardStreams.writeOutput(JSONWriter.pretty(outcome.data) + "\n")
        } else if let text = outcome.text {
            if !options.quiet || text.isEmpty == false { StandardStreams.writeOutput(text) }
        } else if !outcome.data.isNull {
            StandardStreams.writeOutput(JSONWriter.pretty(outcome.data) + "\n")
        }
        if let background = outcome.background {
            BackgroundWork.start(session: self, alias: alias, command: background.command, arguments: background.arguments)
        }
        return 0
    }
}

/// Ctrl-C during a call: the first asks the plugin to stop (it sees is_cancelled), the second quits.
final class InterruptHandler: @unchecked Sendable {
    private let source: DispatchSourceSignal
    private var count = 0

    init(_ onFirst: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue.global())
        source.setEventHandler { [unowned self] in
            count += 1
            if count == 1 { onFirst() } else {
                StandardStreams.writeError("\nclubhouse: interrupted\n")
                _exit(130)
            }
        }
        source.resume()
    }

    func remove() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}

/// Follow-up work a reply asked for: run it in a detached child so the command returns at once.
enum BackgroundWork {
    static func start(session: Session, alias: String, command: String, arguments: JSONObject) {
        var args = ["__run", "--site", session.site.name, "--data-dir", session.dataDirectory]
        if let config = session.options.configPath { args += ["--config", FileSystem.absolute(config)] }
        args += [alias, command, JSONWriter.compact(.object(arguments))]
        let logPath = "\(session.dataDirectory)/\(session.site.name)/background.log"
        Detached.spawn(FileSystem.hostExecutable(), args, logPath: logPath)
    }
}

/// Spawns a process in its own session with output appended to a log file, without waiting.
enum Detached {
    static func spawn(_ executable: String, _ arguments: [String], logPath: String) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        try? FileSystem.createDirectory(FileSystem.directoryName(logPath))
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(0x80) /* POSIX_SPAWN_SETSID */)
        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pointers = argv + [nil]
        var pid: pid_t = 0
        _ = posix_spawn(&pid, executable, &actions, &attributes, &pointers, environ)
    }
}
