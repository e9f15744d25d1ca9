// clubhouse-ballmachine: a ball machine that speaks protocol v0.3, for sites without one and for
// tests. It is the tennis plugin's tool (the protocol and its check byte are TennisCore's): the host
// knows no ball machine, it starts this program for a `simulator:ballmachine` device (on a socket pair,
// `--stdio`) and for `clubhouse device simulate ballmachine`.
//
//   clubhouse-ballmachine --listen tcp:HOST:PORT|unix:PATH [--checksum xor|modbus] [--reject-rate R] [--latency MS] [-q]
//   clubhouse-ballmachine --stdio [the same options]
//
// Exit codes as the host's: 0 stopped (SIGINT, SIGTERM, or the stdio peer closed), 2 wrong usage, 1 cannot serve.

import ClubhousePlatform
import TennisCore
#if canImport(Glibc)
import Glibc
#endif

let usageText = """
    Usage: clubhouse-ballmachine --listen tcp:HOST:PORT|unix:PATH [options]
           clubhouse-ballmachine --stdio [options]
    A protocol v0.3 ball machine: 10-byte commands in, replies out (rejected, or accepted then completed).

      --listen ADDRESS     serve each connection to tcp:HOST:PORT (IPv4; port 0 picks one) or unix:PATH
      --stdio              serve one connection on standard input and output (how the host attaches a device)
      --checksum KIND      xor (default) or modbus (the low byte of CRC-16/Modbus, later firmware)
      --reject-rate R      reject valid frames with probability R, 0–1, as a jammed machine would (default 0)
      --latency MS         wait MS milliseconds, 0–10000, before each reply (default 0)
      -q, --quiet          no report lines on standard error
      -h, --help           this text

    """

func writeOut(_ fd: Int32, _ text: String) {
    _ = Descriptor.writeAll(fd, Array(text.utf8))
}

/// A usage error: one line naming what is wrong, exit 2.
func usage(_ message: String) -> Never {
    writeOut(2, "clubhouse-ballmachine: \(message); see clubhouse-ballmachine --help\n")
    exit(2)
}

/// What the command line asks for.
struct Request {
    var options = SimulationOptions()
    var listen: ListenAddress?
    var stdio = false
    var quiet = false
}

func parse(_ arguments: [String]) -> Request {
    var request = Request()
    var words = arguments[...]
    func value(of flag: String) -> String {
        guard let next = words.popFirst() else { usage("\(flag) needs a value") }
        return next
    }
    while let word = words.popFirst() {
        switch word {
        case "-h", "--help":
            writeOut(1, usageText)
            exit(0)
        case "--listen":
            let text = value(of: word)
            guard let address = ListenAddress(text) else { usage("--listen takes tcp:HOST:PORT or unix:PATH, not \(text)") }
            request.listen = address
        case "--stdio":
            request.stdio = true
        case "--checksum":
            let text = value(of: word)
            guard let checksum = Checksum(rawValue: text) else { usage("--checksum must be xor or modbus, not \(text)") }
            request.options.checksum = checksum
        case "--reject-rate":
            let text = value(of: word)
            guard let rate = Double(text), (0...1).contains(rate) else { usage("--reject-rate must be a number from 0 to 1, got \(text)") }
            request.options.rejectRate = rate
        case "--latency":
            let text = value(of: word)
            guard let latency = Int(text), (0...10_000).contains(latency) else {
                usage("--latency must be 0-10000 milliseconds, got \(text)")
            }
            request.options.latencyMilliseconds = latency
        case "-q", "--quiet":
            request.quiet = true
        default:
            usage("unknown argument '\(word)'")
        }
    }
    if request.stdio && request.listen != nil { usage("--stdio and --listen exclude each other") }
    if !request.stdio && request.listen == nil { usage("give --listen ADDRESS or --stdio") }
    return request
}

/// The server, reporting on standard error unless quiet.
func makeServer(_ request: Request) -> Server {
    let quiet = request.quiet
    return Server(options: request.options) { line in
        if !quiet { writeOut(2, "simulator: \(line)\n") }
    }
}

let request = parse(Array(CommandLine.arguments.dropFirst()))
let options = request.options

// A peer that goes away mid-reply is an error to report, never SIGPIPE.
Signals.ignoreBrokenPipes()
let server = makeServer(request)

if request.stdio {
    server.serve(input: 0, output: 1, peer: "stdio")
    exit(0)
}

// SIGINT and SIGTERM end the listener (a Unix socket's file is removed): blocked here, before any
// thread starts, so that every thread inherits the mask and this one takes them with sigwait. A
// disposition the starter left ignored (`clubhouse device simulate` execs this program) is reset first.
signal(SIGINT, SIG_DFL)
signal(SIGTERM, SIG_DFL)
var stopping = sigset_t()
sigemptyset(&stopping)
sigaddset(&stopping, SIGINT)
sigaddset(&stopping, SIGTERM)
pthread_sigmask(SIG_BLOCK, &stopping, nil)

guard let address = request.listen else { usage("give --listen ADDRESS or --stdio") }
let (listener, bound): (Int32, String)
do {
    (listener, bound) = try server.bind(address)
} catch {
    writeOut(2, "clubhouse-ballmachine: \(error)\n")
    exit(1)
}
writeOut(1, "listening on \(bound) (checksum \(options.checksum.rawValue), reject rate \(options.rejectRate), "
    + "latency \(options.latencyMilliseconds) ms)\n")
do {
    try Thread.start { server.accept(on: listener, bound: bound) }
} catch {
    writeOut(2, "clubhouse-ballmachine: cannot accept connections: \(error)\n")
    exit(1)
}
var received: Int32 = 0
sigwait(&stopping, &received)
close(listener)
if case .unix(let path) = address { unlink(path) }
exit(0)
