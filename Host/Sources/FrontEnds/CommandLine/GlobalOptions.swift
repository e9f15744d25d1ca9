import ClubhouseHost
import ClubhousePlatform
import ClubhouseABI
import ClubhouseLoader
// The options every clubhouse command understands, from flags and the environment:
// --site, --config, --data-dir, --json, --quiet, --verbose, --version, --help, --strict, --no-color,
// --no-pager;
// CLUBHOUSE_CONFIG, CLUBHOUSE_DATA_DIR, CLUBHOUSE_SITE, NO_COLOR.

public struct GlobalOptions: Sendable {
    public var site: String?
    public var configPath: String?
    public var dataDirectory: String?
    public var json = false
    public var quiet = false
    public var verbosity = 0
    public var version = false
    public var help = false
    public var strict = false
    public var color = true
    /// Long text on a terminal through $CLUBHOUSE_PAGER / $PAGER / less (--no-pager turns it off).
    public var pager = true
    /// The words that are not global options, in order.
    public var words: [String] = []

    public init() {}

    /// Splits global options out of the arguments (anywhere before a "--").
    public static func parse(_ arguments: [String], environment: (String) -> String? = FileSystem.environment) throws(UsageError)
        -> GlobalOptions
    {
        var o = GlobalOptions()
        var i = 0
        var passthrough = false
        func value(_ name: String, _ inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            guard i < arguments.count else { throw UsageError("option \(name) needs a value") }
            defer { i += 1 }
            return arguments[i]
        }
        while i < arguments.count {
            let word = arguments[i]
            i += 1
            if passthrough { o.words.append(word); continue }
            if word == "--" { passthrough = true; o.words.append(word); continue }
            var name = word
            var inline: String?
            if word.hasPrefix("--"), let eq = word.firstIndex(of: "=") {
                name = String(word[..<eq])
                inline = String(word[word.index(after: eq)...])
            }
            switch name {
            case "--site": o.site = try value(name, inline)
            case "--config": o.configPath = try value(name, inline)
            case "--data-dir": o.dataDirectory = try value(name, inline)
            case "--json": o.json = true
            case "--quiet", "-q": o.quiet = true
            case "--verbose", "-v": o.verbosity += 1
            case "-vv": o.verbosity += 2
            case "-vvv": o.verbosity += 3
            case "--version", "-V": o.version = true
            case "--help", "-h": o.help = true
            case "--strict": o.strict = true
            case "--no-color": o.color = false
            case "--no-pager": o.pager = false
            default: o.words.append(word)
            }
        }
        if let site = o.site, let problem = Names.nameProblem(site, what: "--site") {
            throw UsageError(problem)
        }
        if o.site == nil, let site = environment("CLUBHOUSE_SITE") {
            if let problem = Names.nameProblem(site, what: "CLUBHOUSE_SITE") {
                throw UsageError("\(problem); fix the environment variable or pass --site")
            }
            o.site = site
        }
        if o.configPath == nil { o.configPath = environment("CLUBHOUSE_CONFIG") }
        if o.dataDirectory == nil { o.dataDirectory = environment("CLUBHOUSE_DATA_DIR") }
        if !GlobalOptions.colorAllowed(environment: environment) { o.color = false }
        return o
    }

    /// What the environment says about colour: no when NO_COLOR is set to anything but "" (as
    /// no-color.org asks) or TERM is "dumb".
    public static func colorAllowed(environment: (String) -> String? = FileSystem.environment) -> Bool {
        if let noColor = environment("NO_COLOR"), !noColor.isEmpty { return false }
        return environment("TERM") != "dumb"
    }

    /// Text for standard output may carry styling (bold table headers): stdout is a terminal, and
    /// neither --json, --no-color, NO_COLOR nor TERM=dumb says no. Never in pipes or files.
    public func stylesOutput(terminal: Bool = StandardStreams.outputIsTerminal) -> Bool {
        color && !json && terminal
    }

    /// The configuration: --config / CLUBHOUSE_CONFIG, else the copy compiled into the binary. With
    /// `oneSite`, for a command that works on the site of --site / CLUBHOUSE_SITE (or the default site) alone,
    /// the embedded copy's other sites are not read (its every site is read and found right by
    /// `ConfigurationParserTests.testTheBundledFileParses`); a file given is read whole, so a problem anywhere
    /// in it is reported.
    public func loadConfiguration(oneSite: Bool = false) throws(CLIError) -> SiteConfiguration {
        var configuration = try parseConfiguration(oneSite: oneSite)
        configuration.commandPrefix = commandPrefix()
        return configuration
    }

    /// `clubhouse` and the --config and --data-dir that chose this run's configuration and data
    /// (those the environment gave are left to the environment), each quoted for a shell.
    public func commandPrefix(environment: (String) -> String? = FileSystem.environment) -> String {
        var words = ["clubhouse"]
        if let configPath, configPath != environment("CLUBHOUSE_CONFIG") { words += ["--config", TokenCommands.shellQuoted(configPath)] }
        if let dataDirectory, dataDirectory != environment("CLUBHOUSE_DATA_DIR") { words += ["--data-dir", TokenCommands.shellQuoted(dataDirectory)] }
        // "clubhouse" alone (the usual case) without the generic join, which the runtime sets up at first use.
        return words.count == 1 ? words[0] : words.joined(separator: " ")
    }

    private func parseConfiguration(oneSite: Bool) throws(CLIError) -> SiteConfiguration {
        if let path = configPath {
            let absolute = FileSystem.absolute(path)
            let bytes: [UInt8]
            do {
                bytes = try FileSystem.read(absolute)
            } catch {
                throw CLIError(status: error.isMissing ? .invalidArgument : .error,
                               message: "\(path): cannot read the configuration (\(error.reason)); check --config / CLUBHOUSE_CONFIG")
            }
            do {
                return try ConfigurationParser.parse(String(decoding: bytes, as: UTF8.self), source: path,
                                                     baseDirectory: FileSystem.directoryName(absolute))
            } catch {
                throw CLIError(status: .invalidArgument, message: GlobalOptions.summarize(error))
            }
        }
        do {
            if oneSite {
                return try ConfigurationParser.parse(EmbeddedDefaults.pluginsJSON, source: "<embedded plugins.json>", baseDirectory: nil,
                                                     onlySite: site)
            }
            return try ConfigurationParser.parse(EmbeddedDefaults.pluginsJSON, source: "<embedded plugins.json>", baseDirectory: nil)
        } catch {
            throw CLIError(status: .error, message: GlobalOptions.summarize(error))
        }
    }

    static func summarize(_ thrown: ConfigurationErrors) -> String {
        let errors = thrown.errors
        guard let first = errors.first else { return "invalid configuration" }
        return errors.count == 1 ? first.description
            : "\(first.description) (and \(errors.count - 1) more problem(s); run: clubhouse config validate)"
    }

    /// Where databases live: --data-dir / CLUBHOUSE_DATA_DIR, the file's "data_dir", or XDG's data home.
    public func resolveDataDirectory(_ configuration: SiteConfiguration) -> String {
        if let d = dataDirectory { return FileSystem.absolute(d) }
        if let d = configuration.dataDirectory { return FileSystem.absolute(d, relativeTo: configuration.baseDirectory) }
        if let xdg = FileSystem.environment("XDG_DATA_HOME") { return FileSystem.absolute(xdg) + "/clubhouse" }
        if let home = FileSystem.environment("HOME") { return home + "/.local/share/clubhouse" }
        return FileSystem.currentDirectory() + "/.clubhouse-data"
    }
}

/// A failure the CLI reports as one line with an exit code.
public struct CLIError: Error, Sendable, CustomStringConvertible {
    public var status: Status
    public var message: String
    /// The command already printed its own JSON report; --json must not print a second document.
    public var reported = false
    public var description: String { message }

    public init(status: Status, message: String) {
        self.status = status
        self.message = message
    }
}
