// Every descriptor the host creates is close-on-exec from birth (issue 27, Platform/CloseOnExec.swift):
// this scans the host's sources (Host/ and PluginSDK/, Swift and C) for the forms that create a
// descriptor a child could inherit — `pipe(`, `accept(`, `dup(`, `socket(` without SOCK_CLOEXEC,
// `open(` without O_CLOEXEC, `fcntl(F_DUPFD)`, FD_CLOEXEC set afterwards, `fopen` without "e", … —
// and for a `posix_spawn` whose file actions do not close everything they do not name. A line (or
// the line above it) carrying `cloexec-ok:` and a reason is exempt. The scanner is tested on
// snippets first, so this test can fail.

import Foundation
import XCTest

final class CloseOnExecSourceTests: XCTestCase {
    /// One finding: file:line and what is wrong.
    struct Finding: CustomStringConvertible, Equatable {
        var file: String
        var line: Int
        var problem: String
        var description: String { "\(file):\(line): \(problem)" }
    }

    /// Calls that create a descriptor, and the flag that makes it close-on-exec (nil: never allowed).
    private static let creators: [(name: String, flag: String?, advice: String)] = [
        ("pipe", nil, "use Descriptor.pipe() (pipe2 with O_CLOEXEC)"),
        ("pipe2", "O_CLOEXEC", "pass O_CLOEXEC"),
        ("accept", nil, "use Descriptor.accept(_:nonBlocking:) (accept4 with SOCK_CLOEXEC)"),
        ("accept4", "SOCK_CLOEXEC", "pass SOCK_CLOEXEC"),
        ("socket", "SOCK_CLOEXEC", "or SOCK_CLOEXEC into the type"),
        ("socketpair", "SOCK_CLOEXEC", "or SOCK_CLOEXEC into the type"),
        ("open", "O_CLOEXEC", "pass O_CLOEXEC"),
        ("openat", "O_CLOEXEC", "pass O_CLOEXEC"),
        ("creat", nil, "use open(O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC)"),
        ("dup", nil, "use fcntl(fd, F_DUPFD_CLOEXEC, 3)"),
        ("dup3", "O_CLOEXEC", "pass O_CLOEXEC"),
        ("mkstemp", nil, "use mkostemp(template, O_CLOEXEC)"),
        ("epoll_create", nil, "use epoll_create1(EPOLL_CLOEXEC)"),
        ("epoll_create1", "EPOLL_CLOEXEC", "pass EPOLL_CLOEXEC"),
        ("eventfd", "EFD_CLOEXEC", "pass EFD_CLOEXEC"),
        ("inotify_init", nil, "use inotify_init1(IN_CLOEXEC)"),
        ("memfd_create", "MFD_CLOEXEC", "pass MFD_CLOEXEC"),
        ("timerfd_create", "TFD_CLOEXEC", "pass TFD_CLOEXEC"),
        ("signalfd", "SFD_CLOEXEC", "pass SFD_CLOEXEC"),
        ("recvmsg", "MSG_CMSG_CLOEXEC", "pass MSG_CMSG_CLOEXEC (descriptors that arrive)"),
    ]

    /// How many arguments the C call takes: a call with another count (or with Swift argument
    /// labels) is a Swift function or a service table's member of the same name.
    private static let arity: [String: ClosedRange<Int>] = [
        "pipe": 1...1, "pipe2": 2...2, "accept": 3...3, "accept4": 4...4, "socket": 3...3, "socketpair": 4...4,
        "open": 2...3, "openat": 3...4, "creat": 2...2, "dup": 1...1, "dup2": 2...2, "dup3": 3...3, "mkstemp": 1...1,
        "epoll_create": 1...1, "epoll_create1": 1...1, "eventfd": 2...2, "inotify_init": 0...0, "memfd_create": 2...2,
        "timerfd_create": 2...2, "signalfd": 3...3, "recvmsg": 3...3, "fcntl": 2...3, "fopen": 2...2, "fdopen": 2...2,
        "posix_spawn": 6...6, "posix_spawnp": 6...6,
    ]

    /// The top-level arguments of a call's text.
    static func split(_ arguments: String) -> [String] {
        var parts: [String] = []
        var depth = 0, current = "", inString = false
        for c in arguments {
            if c == "\"" { inString.toggle() }
            if !inString {
                if c == "(" || c == "[" || c == "{" { depth += 1 }
                if c == ")" || c == "]" || c == "}" { depth -= 1 }
                if c == "," && depth == 0 {
                    parts.append(current.trimmingCharacters(in: .whitespacesAndNewlines))
                    current = ""
                    continue
                }
            }
            current.append(c)
        }
        let last = current.trimmingCharacters(in: .whitespacesAndNewlines)
        if !last.isEmpty || !parts.isEmpty { parts.append(last) }
        return parts
    }

    /// The findings in one file's text.
    static func scan(_ text: String, file: String) -> [Finding] {
        let code = stripComments(text)
        let original = text.components(separatedBy: "\n")
        var findings: [Finding] = []
        let characters = Array(code.unicodeScalars)
        var lineOf: [Int] = []
        lineOf.reserveCapacity(characters.count)
        var current = 1
        for c in characters {
            lineOf.append(current)
            if c == "\n" { current += 1 }
        }
        func lineNumber(_ offset: Int) -> Int { lineOf[offset] }
        func exempt(_ line: Int) -> Bool {
            let here = line - 1 < original.count ? original[line - 1] : ""
            let above = line >= 2 ? original[line - 2] : ""
            return here.contains("cloexec-ok:") || above.contains("cloexec-ok:")
        }
        /// The call's argument text from the "(" at `open` to its matching ")".
        func arguments(from open: Int) -> String {
            var depth = 0
            var end = open
            while end < characters.count {
                if characters[end] == "(" { depth += 1 }
                if characters[end] == ")" {
                    depth -= 1
                    if depth == 0 { break }
                }
                end += 1
            }
            return String(String.UnicodeScalarView(characters[(open + 1)..<min(end, characters.count)]))
        }
        func isIdentifier(_ c: Unicode.Scalar) -> Bool { c == "_" || c.properties.isAlphabetic || ("0"..."9").contains(c) }
        var index = 0
        while index < characters.count {
            guard isIdentifier(characters[index]), index == 0 || !isIdentifier(characters[index - 1]) else {
                index += 1
                continue
            }
            var end = index
            while end < characters.count && isIdentifier(characters[end]) { end += 1 }
            let word = String(String.UnicodeScalarView(characters[index..<end]))
            defer { index = end }
            guard end < characters.count, characters[end] == "(" else { continue }
            // A method (`files.open(`) or a declaration (`func open(`) is not the C call; `Glibc.open(` is.
            let before = index >= 1 ? characters[index - 1] : " "
            var preceding = index - 1
            while preceding >= 0 && characters[preceding] == " " { preceding -= 1 }
            let previousWord: String = {
                var start = preceding
                while start >= 0 && isIdentifier(characters[start]) { start -= 1 }
                return start < preceding ? String(String.UnicodeScalarView(characters[(start + 1)...preceding])) : ""
            }()
            if previousWord == "func" || previousWord == "case" { continue }
            if before == "." {
                let qualifier = index >= 6 ? String(String.UnicodeScalarView(characters[(index - 6)..<index])) : ""
                if qualifier != "Glibc." { continue }
            }
            let line = lineNumber(index)
            if exempt(line) { continue }
            let args = arguments(from: end)
            let parts = Self.split(args)
            guard let expected = arity[word], expected.contains(parts.count),
                  !parts.contains(where: { $0.range(of: #"^[A-Za-z_][A-Za-z0-9_]*:(?!:)"#, options: .regularExpression) != nil })
            else { continue }
            if let creator = creators.first(where: { $0.name == word }) {
                if let flag = creator.flag {
                    if !args.contains(flag) { findings.append(Finding(file: file, line: line, problem: "\(word)(…) without \(flag): \(creator.advice)")) }
                } else {
                    findings.append(Finding(file: file, line: line, problem: "\(word)(…) creates a descriptor without close-on-exec: \(creator.advice)"))
                }
            }
            switch word {
            case "dup2":
                // Onto a standard stream it is meant to be inherited (a child's stdin/stdout/stderr).
                if !["0", "1", "2"].contains(parts.last ?? "") {
                    findings.append(Finding(file: file, line: line, problem: "dup2(…) leaves the copy inheritable: use fcntl(fd, F_DUPFD_CLOEXEC, n)"))
                }
            case "fcntl":
                if parts.count >= 2 && parts[1] == "F_DUPFD" {
                    findings.append(Finding(file: file, line: line, problem: "fcntl(F_DUPFD): use F_DUPFD_CLOEXEC"))
                }
                if parts.count >= 3 && parts[1] == "F_SETFD" && parts[2].contains("FD_CLOEXEC") {
                    findings.append(Finding(file: file, line: line, problem: "FD_CLOEXEC set after the descriptor was made: another thread's spawn can copy it meanwhile; create it close-on-exec"))
                }
            case "fopen", "fdopen":
                if word == "fopen", let mode = parts.last, !mode.contains("e") {
                    findings.append(Finding(file: file, line: line, problem: "fopen without \"e\" in its mode (O_CLOEXEC)"))
                }
            case "posix_spawn", "posix_spawnp":
                if !code.contains("closeInChild") {
                    findings.append(Finding(file: file, line: line, problem: "posix_spawn without Descriptor.closeInChild: the child inherits every descriptor not close-on-exec"))
                }
            default:
                break
            }
        }
        return findings
    }

    /// The text with // and /* */ comments blanked (line breaks kept, so line numbers hold).
    static func stripComments(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var i = 0
        var inString = false
        while i < scalars.count {
            let c = scalars[i]
            if inString {
                out.append(c)
                if c == "\\", i + 1 < scalars.count { out.append(scalars[i + 1]); i += 2; continue }
                if c == "\"" { inString = false }
                i += 1
                continue
            }
            if c == "\"" { inString = true; out.append(c); i += 1; continue }
            if c == "/", i + 1 < scalars.count, scalars[i + 1] == "/" {
                while i < scalars.count && scalars[i] != "\n" { i += 1 }
                continue
            }
            if c == "/", i + 1 < scalars.count, scalars[i + 1] == "*" {
                i += 2
                while i + 1 < scalars.count && !(scalars[i] == "*" && scalars[i + 1] == "/") {
                    if scalars[i] == "\n" { out.append("\n") }
                    i += 1
                }
                i += 2
                continue
            }
            out.append(c)
            i += 1
        }
        return String(out)
    }

    func testTheScannerFindsEveryNonAtomicForm() {
        let bad = """
            let fd = accept(listener, nil, nil)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            guard pipe(&fds) == 0 else { return }
            let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            let f = Glibc.open(path, O_RDONLY)
            let g = open(path,
                         O_RDONLY | O_NONBLOCK)
            let copy = dup(fd)
            dup2(fd, 7)
            let d = fcntl(fd, F_DUPFD, 10)
            FILE *file = fopen(path, "r");
            recvmsg(fd, &message, 0)
            posix_spawn(&pid, path, &actions, nil, &argv, environ)
            """
        let findings = Self.scan(bad, file: "bad.swift")
        XCTAssertEqual(findings.map(\.line), [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13], findings.map(\.description).joined(separator: "\n"))
        let good = """
            let fd = Descriptor.accept(listener, nonBlocking: true)
            let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let f = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            let h = files.open(argument: name, write: true)   // a method, not open(2)
            func open(path: String) {}
            let c = try open(name: name, for: entry)
            return dup(name, fd, path)
            case open(errno: Int32)
            status = open(call, match.name, access, &fd, sink)
            dup2(2, 1)
            let copy = fcntl(fd, F_DUPFD_CLOEXEC, 3)
            // pipe(&fds) in a comment
            FILE *file = fopen(path, "re");
            let n = recvmsg(fd, &message, Int32(MSG_CMSG_CLOEXEC))
            let raw = dup(fd) // cloexec-ok: the test of the exemption
            guard Descriptor.closeInChild(&actions, from: 3) else { return }
            posix_spawn(&pid, path, &actions, nil, &argv, environ)
            """
        XCTAssertEqual(Self.scan(good, file: "good.swift"), [])
    }

    func testTheHostsSourcesCreateEveryDescriptorCloseOnExec() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var findings: [Finding] = []
        var scanned = 0
        for folder in ["Host", "PluginSDK"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where ["swift", "c", "h"].contains(url.pathExtension) {
                let text = try String(contentsOf: url, encoding: .utf8)
                findings += Self.scan(text, file: String(url.path.dropFirst(root.path.count + 1)))
                scanned += 1
            }
        }
        XCTAssertGreaterThan(scanned, 50, "the scan found the sources")
        XCTAssertEqual(findings, [], "\n" + findings.map(\.description).joined(separator: "\n"))
    }
}
