// A `simulator:KIND` device: the program `clubhouse-KIND` installed beside the host executable, started
// on one end of a socket pair (its standard input and output) for each connection. The host knows no
// device's protocol, only the program's name and its options: the ball machine's simulator is the
// tennis plugin's tool (Plugins/Tennis/Sources/clubhouse-ballmachine), which reads frames with the
// plugin's own decoder. The program ends when the host closes its end (or exits).

import ClubhouseABI
import ClubhouseJSON
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

public enum DeviceSimulator {
    /// The program that simulates `kind`: `clubhouse-KIND` in the host executable's folder.
    public static func program(_ kind: String) -> String { FileSystem.executableDirectory() + "/clubhouse-" + kind }

    /// The program's options for a device's `"options"` (checked here, so a site's mistake names the
    /// device and the option: exit 2 before anything starts).
    static func arguments(_ options: JSONObject, name: String) throws(TransportError) -> [String] {
        var arguments: [String] = []
        if let c = options["checksum"] {
            guard let s = c.stringValue, ["xor", "modbus"].contains(s) else {
                throw TransportError(status: .invalidArgument,
                                     message: "device '\(name)': simulator option checksum must be \"xor\" or \"modbus\"")
            }
            arguments += ["--checksum", s]
        }
        if let r = options["reject_rate"] {
            guard let d = r.doubleValue, (0...1).contains(d) else {
                throw TransportError(status: .invalidArgument,
                                     message: "device '\(name)': simulator option reject_rate must be between 0 and 1")
            }
            arguments += ["--reject-rate", String(d)]
        }
        if let l = options["latency_ms"] {
            guard let i = l.intValue, (0...10_000).contains(i) else {
                throw TransportError(status: .invalidArgument, message: "device '\(name)': simulator option latency_ms must be 0-10000")
            }
            arguments += ["--latency", String(i)]
        }
        return arguments
    }

    /// Starts the simulator of `kind` for device `name` and returns the host's end of its connection
    /// (non-blocking). Its report lines go to `report` (nil: it runs quiet).
    public static func attach(kind: String, arguments: [String], name: String,
                       report: (@Sendable (String) -> Void)?) throws(TransportError) -> Int32 {
        let path = program(kind)
        guard access(path, X_OK) == 0 else {
            let reason = String(cString: strerror(errno))
            throw TransportError(status: .unsupported,
                                 message: "device '\(name)': the \(kind) simulator \(path) is missing (\(reason)); "
                                    + "it is installed beside clubhouse (scripts/install.sh), or use a tcp: or unix: device")
        }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw TransportError(status: .io, message: "device '\(name)': cannot start the simulator: \(Transport.errnoText())")
        }
        let (host, machine) = (pair[0], pair[1])
        var errors: (read: Int32, write: Int32)?
        if report != nil {
            guard let p = Descriptor.pipe() else {
                close(host); close(machine)
                throw TransportError(status: .io, message: "device '\(name)': cannot start the simulator: \(Transport.errnoText())")
            }
            errors = (read: p.0, write: p.1)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var moves: [(source: Int32, target: Int32)] = [(machine, 0), (machine, 1)]
        if let errors { moves.append((errors.write, 2)) } else { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        let copies = Descriptor.placeInChild(&actions, moves)
        func cleanUp() {
            close(host); close(machine)
            if let errors { close(errors.read); close(errors.write) }
            copies?.forEach { close($0) }
        }
        guard copies != nil, Descriptor.closeInChild(&actions, from: 3) else {
            cleanUp()
            throw TransportError(status: .io,
                                 message: "device '\(name)': cannot start the simulator: \(Descriptor.closeInChildUnavailable)")
        }
        let argv = ([path, "--stdio"] + arguments + (report == nil ? ["--quiet"] : [])).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pointers = argv + [nil]
        // An allow-list of the host's environment, never its secrets (ChildEnvironment; SECURITY.md).
        var env = ChildEnvironment.pointers()
        defer { env.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, &pointers, &env)
        close(machine)
        copies?.forEach { close($0) }
        if let errors { close(errors.write) }
        guard spawned == 0 else {
            close(host)
            if let errors { close(errors.read) }
            throw TransportError(status: .io,
                                 message: "device '\(name)': cannot start the simulator \(path): \(String(cString: strerror(spawned)))")
        }
        _ = fcntl(host, F_SETFL, fcntl(host, F_GETFL) | O_NONBLOCK)
        // Reaped when it ends (the host closed the device, or quit).
        let child = pid
        do throws(ThreadStartError) {
            try Thread.start {
                var status: Int32 = 0
                while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            }
            if let errors, let report { try relay(errors.read, name: name, report) }
        } catch {
            // A simulator nobody reaps (or whose report lines nobody reads, and would block it): none.
            kill(child, SIGKILL)
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}  // ECHILD when the reaper got it
            close(host)
            if let errors { close(errors.read) }
            throw TransportError(status: .busy, message: "device '\(name)': the simulator was not started: \(error); end other work on this machine and try again")
        }
        return host
    }

    /// Forwards the program's report lines ("simulator: stdio: received …") as "simulator:NAME: received …".
    private static func relay(_ fd: Int32, name: String, _ report: @escaping @Sendable (String) -> Void) throws(ThreadStartError) {
        try Thread.start {
            defer { close(fd) }
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                pending += buffer[0..<n]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    var line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    if line.hasPrefix("simulator: stdio: ") { line = "simulator:\(name): " + line.dropFirst(18) }
                    report(line)
                }
            }
        }
    }
}
