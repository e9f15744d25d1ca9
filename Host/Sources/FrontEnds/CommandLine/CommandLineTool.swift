// The `clubhouse` command line: global options, built-in commands, and
// `clubhouse <plugin> <command> [--arg value …]` routed to plugins. Exit codes: 0 ok, 1 failure,
// 2 usage error.

import ClubhouseHost
import ClubhousePlatform
import CClubhouse
import CEventPoll
import ClubhouseABI
import ClubhouseJSON
import Synchronization
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

public enum CommandLineTool {
    /// Runs the tool and returns the process exit code.
    public static func run(_ arguments: [String]) -> Int32 {
        // A closed pipe (a reader that went away, a dead runner) is an error to handle, not death.
        Signals.ignoreBrokenPipes()
        // Internal modes used by the host itself (child processes).
        if let first = arguments.first, first.hasPrefix("__") {
            return InternalModes.run(first, Array(arguments.dropFirst()))
        }
        let options: GlobalOptions
        // Errors are coloured when stderr is a terminal and neither NO_COLOR, TERM=dumb nor --no-color says no.
        let color = StandardStreams.errorIsTerminal && GlobalOptions.colorAllowed() && !arguments.contains("--no-color")
        do {
            options = try GlobalOptions.parse(arguments)
        } catch {
            return fail(CLIError(status: .invalidArgument, message: error.message), json: arguments.contains("--json"), color: color)
        }
        do {
            return try dispatch(options)
        } catch {
            return fail(error, json: options.json, color: color)
        }
    }

    static func fail(_ error: CLIError, json: Bool, color: Bool = false) -> Int32 {
        if json && !error.reported {
            let document: JSONValue = ["error": ["status": .string(error.status.name), "message": .string(error.message)]]
            StandardStreams.writeOutput(JSONWriter.pretty(document) + "\n")
        }
        // On a terminal the prefix is red, as cargo and git mark errors (never with NO_COLOR or --no-color).
        let prefix = color ? "\u{1B}[1;31mclubhouse:\u{1B}[0m" : "clubhouse:"
        StandardStreams.writeError("\(prefix) \(TerminalText.plain(shortened(error.message), keepNewlines: true))\n")
        return error.status.exitCode
    }


    /// --strict: any command fails when a plugin of the site does not load, before it runs.
    static func requireEveryPluginLoads(_ session: Session) throws(CLIError) {
        session.runtime.resolveAll()
        var failures: [String] = []
        for entry in session.site.plugins where entry.enabled {
            if case .failure(let e) = session.runtime.resolve(entry.alias) { failures.append(e.message) }
        }
        guard let first = failures.first else { return }
        throw CLIError(status: .error, message: "--strict: \(first)" + (failures.count > 1 ? " (and \(failures.count - 1) more; clubhouse plugins list shows them)" : ""))
    }

    /// A message with every overlong word (a 100,000-character argument echoed back) cut to its
    /// head and tail and the count of what was left out, so an error stays one readable line. An
    /// absolute path up to PATH_MAX is kept whole (a backup to restore, a file to fix): the reader
    /// copies it to act on the message.
    static func shortened(_ message: String, longest: Int = 120) -> String {
        guard message.count > longest else { return message }
        var out = ""
        var word = ""
        func isPath(_ word: String) -> Bool {
            word.utf8.count <= Int(PATH_MAX) && word.drop(while: { "('\"".contains($0) }).hasPrefix("/")
        }
        func flush() {
            if word.count > longest && !isPath(word) {
                out += word.prefix(longest / 2) + "…(\(word.count - longest / 2 - 16) more characters)…" + word.suffix(16)
            } else {
                out += word
            }
            word = ""
        }
        for character in message {
            if character == " " || character == "\n" { flush(); out.append(character) } else { word.append(character) }
        }
        flush()
        return out
    }

    static func dispatch(_ options: GlobalOptions) throws(CLIError) -> Int32 {
        let words = options.words
        if options.version && words.isEmpty { return BuiltinCommands.version(options) }
        guard let first = words.first else {
            if options.help {
                let session = try Session(options: options)
                Pager.show(HelpText.overview(session: session), enabled: options.pager)
                return 0
            }
            throw CLIError(status: .invalidArgument, message: "no command given; try clubhouse --help")
        }
        if first.hasPrefix("-") && first != "-" {
            throw CLIError(status: .invalidArgument,
                           message: "unknown option '\(first)'; global options are --site, --config, --data-dir, --json, --quiet, -v, --strict, --no-color, --version, --help (clubhouse --help)")
        }
        if first == "help" {
            // Its topic is the words that follow, however many ("help putting bestline"): one argument.
            let topic = words.dropFirst().joined(separator: " ")
            return try BuiltinCatalogue.run("help", topic.isEmpty ? [:] : ["topic": .string(topic)], options)
        }
        if BuiltinCatalogue.groups.contains(first) {
            return try runBuiltin(words, options)
        }
        // One command of one plugin at one site: the embedded configuration's other sites are not read, and the
        // plugin is loaded where it was found when described.
        let session = try Session(options: options, oneCommand: true)
        return try runPluginCommand(alias: first, words: Array(words.dropFirst()), session: session)
    }

    /// A built-in command: selected and checked against its declaration like a plugin's; `--help`
    /// prints its help and does nothing else.
    static func runBuiltin(_ words: [String], _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let catalogue = BuiltinCatalogue.catalogue
        let command: CommandSpec
        let rest: [String]
        switch CommandLineParser.selectCommand(words, in: catalogue, plugin: BuiltinCatalogue.name) {
        case .success(let (c, r)): (command, rest) = (c, r)
        case .failure:
            let group = catalogue.commands.filter { $0.words.first == words[0] }
            let typed = words.prefix { !$0.hasPrefix("-") }.joined(separator: " ")
            // `clubhouse plugins --help`: the group's commands.
            if options.help && words.dropFirst().allSatisfy({ $0.hasPrefix("-") }) {
                Pager.show(HelpText.builtins(group), enabled: options.pager)
                return 0
            }
            let names = group.map { "clubhouse \($0.name)" }.joined(separator: " | ")
            throw CLIError(status: .invalidArgument,
                           message: "unknown command 'clubhouse \(typed)'; \(group.count == 1 ? "usage" : "one of"): \(names) (clubhouse --help lists them)")
        }
        if options.help {
            Pager.show(HelpText.command(command, plugin: nil), enabled: options.pager)
            return 0
        }
        let arguments: JSONObject
        do {
            arguments = try CommandLineParser.parse(rest, for: command, plugin: BuiltinCatalogue.name)
        } catch {
            throw CLIError(status: .invalidArgument, message: error.message)
        }
        return try BuiltinCatalogue.run(command.name, arguments, options)
    }

    /// `clubhouse help [TOPIC…]`: the overview, a built-in group or command, a plugin, or a plugin's command.
    static func help(topic: [String], _ options: GlobalOptions) throws(CLIError) -> Int32 {
        guard let first = topic.first else {
            let session = try Session(options: options)
            Pager.show(HelpText.overview(session: session), enabled: options.pager)
            return 0
        }
        if BuiltinCatalogue.groups.contains(first) {
            var o = options
            o.help = true
            return try runBuiltin(topic, o)
        }
        let session = try Session(options: options)
        let plugin: ResolvedPlugin
        switch session.runtime.resolve(first) {
        case .success(let p): plugin = p
        case .failure(let e): throw CLIError(status: e.status, message: e.message)
        }
        if topic.count == 1 {
            Pager.show(HelpText.plugin(plugin), enabled: options.pager)
            return 0
        }
        switch CommandLineParser.selectCommand(Array(topic.dropFirst()), in: plugin.catalogue, plugin: first) {
        case .success(let (command, _)): Pager.show(HelpText.command(command, plugin: first), enabled: options.pager)
        case .failure(let e): throw CLIError(status: .invalidArgument, message: e.message)
        }
        return 0
    }

    static func runPluginCommand(alias: String, words: [String], session: Session) throws(CLIError) -> Int32 {
        let options = session.options
        let plugin: ResolvedPlugin
        switch session.runtime.resolve(alias) {
        case .success(let p): plugin = p
        case .failure(let e): throw CLIError(status: e.status, message: e.message)
        }
        if options.strict { try requireEveryPluginLoads(session) }
        if words.isEmpty || (options.help && words.allSatisfy({ $0.hasPrefix("-") })) {
            if options.help || words.isEmpty {
                Pager.show(HelpText.plugin(plugin), enabled: options.pager)
                if words.isEmpty && !options.help {
                    throw CLIError(status: .invalidArgument, message: "'\(alias)' needs a command (listed above)")
                }
                return 0
            }
        }
        if options.help {
            // Help never acts: it names the command the words select, or the plugin's list.
            switch CommandLineParser.selectCommand(words, in: plugin.catalogue, plugin: alias) {
            case .success(let (command, _)): Pager.show(HelpText.command(command, plugin: alias), enabled: options.pager)
            case .failure(let e):
                if words.contains(where: { !$0.hasPrefix("-") }) { throw CLIError(status: .invalidArgument, message: e.message) }
                Pager.show(HelpText.plugin(plugin), enabled: options.pager)
            }
            return 0
        }
        let prepared: PreparedCall
        switch session.runtime.router.prepare(alias: alias, .words(words), origin: .commandLine) {
        case .success(let p): prepared = p
        case .failure(let e): throw CLIError(status: e.status, message: e.message)
        }
        var outcome = session.call(prepared)
        if outcome.status == .needsConfirmation {
            outcome = try confirm(outcome, prepared: prepared, words: words, session: session)
        }
        return try session.report(outcome, alias: alias, command: prepared.command.name)
    }

    /// A permanent action on incomplete data: on a terminal the question is asked and "y" runs the
    /// command again with `--yes`; anywhere else (a script, --json, a command without a `yes`
    /// flag) the call fails (exit 2) saying how to confirm. Nothing was changed either way until
    /// the user said yes.
    static func confirm(_ outcome: CallOutcome, prepared: PreparedCall, words: [String], session: Session) throws(CLIError) -> CallOutcome {
        let alias = prepared.alias
        let hasYes = prepared.command.arguments.contains { $0.name == "yes" && $0.kind == .flag }
        guard hasYes else { throw CLIError(status: .needsConfirmation, message: outcome.message) }
        let interactive = isatty(0) != 0 && StandardStreams.errorIsTerminal && !session.options.json
        guard interactive else {
            throw CLIError(status: .needsConfirmation, message: "\(outcome.message) (nothing was changed; run it again with --yes to confirm)")
        }
        StandardStreams.writeError("\(alias): \(TerminalText.plain(outcome.message)) [y/N] ")
        let answer = String((readLine(strippingNewline: true) ?? "").filter { !$0.isWhitespace }).lowercased()
        guard answer == "y" || answer == "yes" else {
            throw CLIError(status: .needsConfirmation, message: "not confirmed; nothing was changed")
        }
        let again: PreparedCall
        switch session.runtime.router.prepare(alias: alias, .words(words + ["--yes"]), origin: .commandLine) {
        case .success(let p): again = p
        case .failure(let e): throw CLIError(status: e.status, message: e.message)
        }
        return session.call(again)
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

    /// `oneCommand`: the run is one plugin command, on the site alone (GlobalOptions.loadConfiguration(oneSite:)),
    /// whose plugin loads right after it is described (SiteRuntime's `keepsLocation`).
    init(options: GlobalOptions, dataDirectoryOverride: String? = nil, oneCommand: Bool = false) throws(CLIError) {
        self.options = options
        configuration = try options.loadConfiguration(oneSite: oneCommand)
        let siteName = options.site ?? configuration.defaultSite
        do {
            site = try configuration.site(named: siteName)
        } catch {
            throw CLIError(status: .invalidArgument, message: "\(error.message); choose one with --site or CLUBHOUSE_SITE")
        }
        dataDirectory = dataDirectoryOverride ?? options.resolveDataDirectory(configuration)
        log = LogBroker(verbosity: options.verbosity, color: options.color && StandardStreams.errorIsTerminal)
        let background = DetachedBackground(siteName: site.name, dataDirectory: dataDirectory,
                                            configPath: options.configPath.map { FileSystem.absolute($0) })
        runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: dataDirectory, log: log,
                              background: background, keepsLocation: oneCommand)
    }

    deinit { runtime.shutdown() }

    var showsProgress: Bool { Session.wouldShowProgress(options: options, terminal: StandardStreams.errorIsTerminal) }

    /// A progress bar goes to a terminal only, and never with --quiet or --json.
    static func wouldShowProgress(options: GlobalOptions, terminal: Bool) -> Bool {
        !options.quiet && !options.json && terminal
    }

    /// Runs a routed command with progress on a terminal and Ctrl-C wired to cancellation.
    func call(_ prepared: PreparedCall) -> CallOutcome {
        var flags: UInt32 = 0
        if options.json { flags |= UInt32(CLUBHOUSE_CALL_MACHINE_OUTPUT) }
        if StandardStreams.outputIsTerminal && StandardStreams.errorIsTerminal { flags |= UInt32(CLUBHOUSE_CALL_INTERACTIVE) }
        // The reply's text is printed on stdout (or through the pager, which keeps colours: less -R).
        if options.stylesOutput() { flags |= UInt32(CLUBHOUSE_CALL_STYLED_TEXT) }
        var progress: any ProgressSink = showsProgress && prepared.command.longRunning ? TerminalProgressBar() : SilentProgress()
        // A testing aid for the cancellation audit: cancel the call at its Nth progress update, as a
        // Ctrl-C would at that moment (CLUBHOUSE_TEST_CANCEL_AT_PROGRESS=N).
        let cancelAt = FileSystem.environment("CLUBHOUSE_TEST_CANCEL_AT_PROGRESS").flatMap { UInt64($0) }.map { CancelAtProgress(progress, at: $0) }
        if let cancelAt { progress = cancelAt }
        let router = runtime.router
        let context = router.context(for: prepared, flags: flags, progress: progress)
        cancelAt?.arm { [log] in
            log.warning("cancelling at a progress update (CLUBHOUSE_TEST_CANCEL_AT_PROGRESS)")
            context.cancel()
        }
        let handler = interrupts ?? InterruptHandler(runtime: runtime, log: log)
        handler.begin(context, alias: prepared.alias)
        defer {
            handler.end()
            if interrupts == nil { handler.remove() }
        }
        return router.run(prepared, context: context)
    }

    /// Set for the length of a run of several calls (the demo): Ctrl-C and SIGTERM are then handled
    /// between the calls too, and `interrupts.interrupted` tells the run to stop.
    var interrupts: InterruptHandler?

    /// Prints an outcome and returns the exit code (or throws the failure).
    func report(_ outcome: CallOutcome, alias: String, command: String) throws(CLIError) -> Int32 {
        guard outcome.status == .ok else {
            throw CLIError(status: outcome.status, message: outcome.message)
        }
        if options.json {
            StandardStreams.writeOutput(JSONWriter.pretty(outcome.data) + "\n")
        } else if let text = outcome.text {
            // What a phone stored may be in it: no escape sequence but the colours asked for reaches the terminal.
            let shown = TerminalText.shown(text, styled: options.stylesOutput())
            if !options.quiet || text.isEmpty == false { Pager.show(shown, enabled: options.pager) }
        } else if !outcome.data.isNull {
            StandardStreams.writeOutput(JSONWriter.pretty(outcome.data) + "\n")
        }
        return 0
    }
}

/// Passes progress on and cancels the call at its Nth progress update (N = 0: before it starts).
/// @unchecked Sendable: `updates` and `cancel` are read and written under `lock`; the rest never changes.
final class CancelAtProgress: ProgressSink, @unchecked Sendable {
    private let inner: any ProgressSink
    private let threshold: UInt64
    private let lock = Lock()
    private var updates: UInt64 = 0
    private var cancel: (@Sendable () -> Void)?

    init(_ inner: any ProgressSink, at threshold: UInt64) {
        self.inner = inner
        self.threshold = threshold
    }

    /// Sets what cancelling does; with a threshold of 0 the call is cancelled before it starts.
    func arm(_ cancel: @escaping @Sendable () -> Void) {
        if threshold == 0 { cancel() } else { lock.withLock { self.cancel = cancel } }
    }

    private func count(_ step: UInt64) {
        let fire: (@Sendable () -> Void)? = lock.withLock {
            updates += step
            guard updates >= threshold, let c = cancel else { return nil }
            cancel = nil
            return c
        }
        fire?()
    }

    func begin(label: String, total: UInt64) { inner.begin(label: label, total: total) }

    func update(done: UInt64) {
        inner.update(done: done)
        count(1)
    }

    func setUnit(_ unit: ProgressUnit) { inner.setUnit(unit) }

    func end() { inner.end() }
}

/// Ctrl-C and SIGTERM while clubhouse runs calls. The first asks the running call to stop (it sees
/// is_cancelled, stops its devices, stores what it did: RELIABILITY.md § Cancellation). The second
/// stops every device left running itself (their safe states: DeviceSafety.swift), gives the call
/// `storeGraceMilliseconds` to finish storing, then quits (exit 130); the third quits at once.
/// SIGTERM counts like Ctrl-C and takes the second step by itself when the call has not returned
/// within `CallContext.cleanupGraceMilliseconds` (a service manager's stop must end).
/// The signals come through `SignalRelay` (a handler and a pipe), not Dispatch signal sources.
/// @unchecked Sendable: its counters and the call it stops are guarded by `lock`.
final class InterruptHandler: @unchecked Sendable {
    /// How long a call gets to store what it did after the host stopped its devices.
    static let storeGraceMilliseconds = 3_000

    /// Nil for a command that runs no call and no device (`federation push`: its psql is what it stops).
    private let runtime: SiteRuntime?
    private let log: LogBroker?
    /// Whether the first signal is announced ("interrupted; asking … to stop"): not for a command that says
    /// its own one line when stopped (`federation`: FederationCommands.Interrupts).
    private let announces: Bool
    private let lock = Lock()
    private var signals = 0
    /// Cancels what runs (a call; under `serve`, the server and all its calls); nil between calls.
    private var cancel: (@Sendable () -> Void)?
    /// What runs, as messages name it ("'tennis'").
    private var alias = ""
    /// Counts calls, so a timer armed during one call does nothing in the next.
    private var generation = 0

    init(runtime: SiteRuntime?, log: LogBroker?, announces: Bool = true) {
        self.runtime = runtime
        self.log = log
        self.announces = announces
        SignalRelay.shared.deliver(to: self)
    }

    /// Whether a signal came (the run of calls stops).
    var interrupted: Bool { lock.withLock { signals > 0 } }

    /// The call the next signal asks to stop (it is cancelled at once when a signal already came).
    func begin(_ context: CallContext, alias: String) {
        begin(what: "'\(alias)'") { context.cancel() }
    }

    /// What the next signal asks to stop, described as `what` ("'tennis'", "the server's calls"), through
    /// `cancel` (run at once when a signal already came). `serve` stops its server and every call it runs.
    func begin(what: String, cancel: @escaping @Sendable () -> Void) {
        let cancelNow = lock.withLock { () -> Bool in
            self.cancel = cancel
            self.alias = what
            generation += 1
            return signals > 0
        }
        if cancelNow { cancel() }
    }

    /// The call returned. While the handler is quitting (it kills the runners, so the call may
    /// return with their failure), the caller waits here for the exit instead of reporting it.
    func end() {
        let quitting = lock.withLock { () -> Bool in
            cancel = nil
            generation += 1
            return self.quitting
        }
        while quitting { pause() }
    }

    /// Set once `quit` has begun.
    private var quitting = false

    /// A request to suspend (Ctrl-Z, SIGTSTP; SIGTTIN or SIGTTOU for a background host that touches its terminal):
    /// a suspended host cannot watch a device, so every device left running is stopped first — its call loses
    /// the connection and ends as cancelled — and then the host stops itself (SIGSTOP) as the default action
    /// would. After `fg` or SIGCONT it goes on; the drill does not resume by itself. A host with no device
    /// running just suspends. RELIABILITY.md § Cancellation and devices.
    fileprivate func suspend(_ signalNumber: Int32) {
        let what = SignalRelay.name(signalNumber)
        if let runtime, !runtime.devices.secureAll(because: "\(what): the host is being suspended") {
            log?.warning("\(what): a device did not acknowledge its stop; suspending all the same")
        }
        _ = kill(getpid(), SIGSTOP)
    }

    fileprivate func received(_ signalNumber: Int32) {
        let (count, cancel, alias, generation) = lock.withLock { () -> (Int, (@Sendable () -> Void)?, String, Int) in
            signals += 1
            return (signals, self.cancel, self.alias, self.generation)
        }
        let what = SignalRelay.name(signalNumber)
        switch count {
        case 1:
            guard let cancel else { return }
            let how = signalNumber == SIGINT ? "interrupted" : signalNumber == SIGTERM ? "terminated" : "terminated by \(what)"
            if announces { log?.warning("\(how); asking \(alias) to stop (press Ctrl-C again to stop its devices and quit)") }
            cancel()
            // Every signal but Ctrl-C is SIGTERM's: the second step comes by itself (nobody may press Ctrl-C).
            if signalNumber != SIGINT {
                do throws(ThreadStartError) {
                    // On the device watchdog's thread: this step stops devices, and no other delayed work holds it up.
                    try DeviceBroker.safetyScheduler.schedule(after: CallContext.cleanupGraceMilliseconds) { [weak self] in
                        self?.escalate(ifStill: generation, because: "\(what), and \(alias) had not returned \(CallContext.cleanupGraceMilliseconds / 1000) s later")
                    }
                } catch {
                    // No timer for the grace: the second step now (the devices stopped) rather than never.
                    escalate(ifStill: generation, because: "\(what), and the host could not wait \(CallContext.cleanupGraceMilliseconds / 1000) s for \(alias): \(error)")
                }
            }
        case 2:
            escalate(ifStill: nil, because: "\(what) twice")
        default:
            quit()
        }
    }

    /// Exits 130 at once; no runner outlives the host.
    private func quit() -> Never {
        lock.withLock { quitting = true }
        runtime?.killRunnersNow()
        StandardStreams.writeError("\nclubhouse: interrupted\n")
        _exit(130)
    }

    /// The second step: every device left running is stopped by the host; the call gets
    /// `storeGraceMilliseconds` to return (the process exits 130 after that).
    private func escalate(ifStill expected: Int?, because reason: String) {
        // A SIGTERM timer armed during a call that has returned since does nothing.
        if let expected, lock.withLock({ expected != generation || cancel == nil }) { return }
        runtime?.devices.secureAll(because: reason)
        // The call returned meanwhile: the command line finishes by itself (exit 130).
        guard let current = lock.withLock({ cancel == nil ? nil : generation }) else { return }
        StandardStreams.writeError("clubhouse: stopping: the call gets \(InterruptHandler.storeGraceMilliseconds / 1000) s to store what it did (press Ctrl-C again to quit at once)\n")
        do throws(ThreadStartError) {
            try DeviceBroker.safetyScheduler.schedule(after: InterruptHandler.storeGraceMilliseconds) { [weak self] in
                guard let self, lock.withLock({ generation == current }) else { return }
                quit()
            }
        } catch {
            // Nothing would end the process (a SIGTERM has nobody to press Ctrl-C): it ends now, its devices stopped above.
            StandardStreams.writeError("clubhouse: the host could not wait for the call: \(error)\n")
            quit()
        }
    }

    func remove() { SignalRelay.shared.stop(delivering: self) }
}

/// SIGINT, SIGTERM and every other signal that would end the process (`SignalRelay.stopping`) turned into
/// calls of `InterruptHandler.received` on a thread of their own.
/// A handler (async-signal-safe: it writes the signal's number to a pipe) is installed rather than
/// Dispatch signal sources: those set the signals to SIG_IGN and read them through a signalfd, and
/// a thread that did not block them could take such a signal first and drop it (a Ctrl-C lost: the
/// drill ran to its end; issue 30, DrillStopEndToEndTests). A handler is never ignored. SA_RESTART;
/// a blocking call that returns EINTR all the same is retried where the host waits (Descriptor, Wire).
/// One per process, made on first use (the pipe and the reading thread stay for the process's life,
/// so the handler never writes to a closed descriptor).
/// @unchecked Sendable: `recipient` is guarded by `lock`; the descriptors are set once in init.
final class SignalRelay: @unchecked Sendable {
    static let shared = SignalRelay()

    /// The pipe's write end, for the handler (which can capture nothing): -1 until it exists.
    private static let writeEnd = Atomic<Int32>(-1)

    private let lock = Lock()
    private weak var recipient: InterruptHandler?

    /// The signals whose default action ends the process and that can be caught, besides Ctrl-C (SIGINT): each
    /// is handled like SIGTERM — the calls are cancelled, their devices stopped, then the host exits — rather than
    /// killing the host with a ball machine still firing (fourth outside attack, b03/b35: SIGHUP, the signal of
    /// a closed terminal or a dropped SSH session, ended `serve` mid-drill without the machine's stop).
    /// RELIABILITY.md § Cancellation and devices. Not here: SIGPIPE and SIGXFSZ, ignored (`Signals`: a failed
    /// write is an error); SIGKILL and SIGSTOP (cannot be caught); the faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
    /// SIGABRT, SIGTRAP, SIGSYS: a crash is not a request to stop); glibc's own real-time signals (32, 33), whose
    /// handlers are glibc's (32's installed in `init`) and ignore them from other processes.
    static var stopping: [Int32] {
        [SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGPWR, SIGSTKFLT, SIGIO]
            + Array(__libc_current_sigrtmin()...__libc_current_sigrtmax())
    }

    /// The signals whose default action suspends the process: handled so that no device runs on while the host
    /// is stopped (`InterruptHandler.suspend`); SIGSTOP itself cannot be caught (said in RELIABILITY.md).
    static let suspending: [Int32] = [SIGTSTP, SIGTTIN, SIGTTOU]

    /// How a message names the signal.
    static func name(_ signalNumber: Int32) -> String {
        let names: [Int32: String] = [SIGINT: "Ctrl-C", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP (the terminal closed)",
                                      SIGQUIT: "SIGQUIT", SIGUSR1: "SIGUSR1", SIGUSR2: "SIGUSR2", SIGALRM: "SIGALRM",
                                      SIGVTALRM: "SIGVTALRM", SIGPROF: "SIGPROF", SIGXCPU: "SIGXCPU", SIGPWR: "SIGPWR",
                                      SIGSTKFLT: "SIGSTKFLT", SIGIO: "SIGIO", SIGTSTP: "SIGTSTP (Ctrl-Z)",
                                      SIGTTIN: "SIGTTIN", SIGTTOU: "SIGTTOU"]
        return names[signalNumber] ?? "signal \(signalNumber)"
    }

    /// What the relay handles: SIGINT, SIGTERM, and each of `stopping` the process did not start with ignored
    /// (`nohup` ignores SIGHUP, a shell's `&` SIGQUIT: that choice of whoever started the host stands).
    private let handled: [Int32]
    /// Why the relay does not run (no pipe, or no thread to read it), set once in init: the signals then keep
    /// their default action (a Ctrl-C ends the host) rather than be caught and never acted on.
    private var broken: String?

    private init() {
        // Signal 32 (glibc's SIGCANCEL) cannot be handled here: glibc's own handler, installed now, ignores it
        // from anyone but this process (the fifth outside attack: `kill -32` ended the host mid-drill).
        _ = clubhouse_claim_cancel_signal()
        handled = [SIGINT] + (SignalRelay.stopping + SignalRelay.suspending).filter { signalNumber in
            var current = sigaction()
            guard signalNumber != SIGTERM, sigaction(signalNumber, nil, &current) == 0,
                  let handler = current.__sigaction_handler.sa_handler else { return true }
            return unsafeBitCast(handler, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self)
        }
        guard let (readEnd, writeEnd) = Descriptor.pipe(nonBlocking: false) else {
            broken = "no pipe for them (\(String(cString: strerror(errno))))"
            return
        }
        // Never blocks the handler: a full pipe (signals nobody read yet) loses only repeats.
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        do throws(ThreadStartError) {
            try startReading(readEnd)
            SignalRelay.writeEnd.store(writeEnd, ordering: .releasing)
        } catch {
            close(readEnd)
            close(writeEnd)
            broken = "\(error)"
        }
    }

    private func startReading(_ readEnd: Int32) throws(ThreadStartError) {
        try Thread.start { [unowned self] in
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n == 1 {
                    let to = lock.withLock { recipient }
                    let signalNumber = Int32(byte)
                    if SignalRelay.suspending.contains(signalNumber) {
                        if let to { to.suspend(signalNumber) } else { _ = kill(getpid(), SIGSTOP) }
                    } else {
                        to?.received(signalNumber)
                    }
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// Sends SIGINT, SIGTERM and the other signals `handled` to `handler` from now on.
    func deliver(to handler: InterruptHandler) {
        if let broken {
            StandardStreams.writeError("clubhouse: signals are not relayed to the calls (\(broken)): Ctrl-C and SIGTERM end the host at once, without stopping its devices\n")
            return
        }
        lock.withLock { recipient = handler }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signalNumber in
            let saved = errno
            let fd = SignalRelay.writeEnd.load(ordering: .acquiring)
            var byte = UInt8(truncatingIfNeeded: signalNumber)
            if fd >= 0 { _ = write(fd, &byte, 1) }
            errno = saved
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for signalNumber in handled { sigaction(signalNumber, &action, nil) }
    }

    /// The signals' default action again (when `handler` is still the one receiving them).
    func stop(delivering handler: InterruptHandler) {
        guard broken == nil else { return }
        lock.withLock { if recipient === handler { recipient = nil } }
        for signalNumber in handled { signal(signalNumber, SIG_DFL) }
    }
}

/// Follow-up work a reply asked for: run in a detached child (`clubhouse __run …`) so the call that
/// asked returns at once, whichever front end made it; its output goes to the site's background.log.
struct DetachedBackground: BackgroundLauncher {
    let siteName: String
    let dataDirectory: String
    let configPath: String?

    func launch(alias: String, command: String, arguments: JSONObject) {
        var args = ["__run", "--site", siteName, "--data-dir", dataDirectory]
        if let configPath { args += ["--config", configPath] }
        args += [alias, command, JSONWriter.compact(.object(arguments))]
        let logPath = "\(dataDirectory)/\(siteName)/background.log"
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
        // The background run holds nothing of this process's (under serve: no client's socket).
        guard Descriptor.closeInChild(&actions, from: 3) else { return }
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
