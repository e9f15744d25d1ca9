// Long text on a terminal goes through a pager, as git does: `$CLUBHOUSE_PAGER`, else `$PAGER`,
// else `less` (with LESS=FRX unless LESS is set: quit if one screen, keep colours, leave the text
// on screen). Never in pipes, files or with --json; `--no-pager`, or a pager of "" or "cat", turns
// it off. A pager that cannot start prints the text directly: paging never loses output.

import ClubhouseHost
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

enum Pager {
    /// Prints `text` on stdout, through the pager when stdout is a terminal and the text is at
    /// least as tall as it.
    static func show(_ text: String, enabled: Bool) {
        guard enabled, StandardStreams.outputIsTerminal, let command = pagerCommand(),
              text.utf8.reduce(0, { $0 + ($1 == 10 ? 1 : 0) }) >= terminalRows() else {
            StandardStreams.writeOutput(text)
            return
        }
        if !run(command, text) { StandardStreams.writeOutput(text) }
    }

    /// The pager to run, or nil when paging is off.
    static func pagerCommand(environment: (String) -> String? = FileSystem.environment) -> String? {
        let chosen = environment("CLUBHOUSE_PAGER") ?? environment("PAGER") ?? "less"
        let trimmed = String(chosen.drop { $0 == " " })
        return trimmed.isEmpty || trimmed == "cat" ? nil : trimmed
    }

    /// The terminal's height: $LINES when set, else the window size of stdout, else 24.
    static func terminalRows() -> Int {
        if let lines = FileSystem.environment("LINES").flatMap({ Int($0) }), lines > 0 { return lines }
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 { return Int(size.ws_row) }
        return 24
    }

    /// Runs `/bin/sh -c COMMAND` with the text on its stdin and waits; false when the pager could not
    /// start (spawn failed, or the shell found no such command).
    private static func run(_ command: String, _ text: String) -> Bool {
        var fds: [Int32] = [-1, -1]
        guard Subprocess.makePipe(&fds) else { return false }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
        posix_spawn_file_actions_addclose(&actions, fds[1])
        guard Descriptor.closeInChild(&actions, from: 3) else {
            close(fds[0])
            close(fds[1])
            return false
        }
        let words: [String] = ["/bin/sh", "-c", command]
        let arguments = words.map { strdup($0) }
        defer { arguments.forEach { free($0) } }
        var argv = arguments + [nil]
        if FileSystem.environment("LESS") == nil { setenv("LESS", "FRX", 1) }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, &argv, environ)
        close(fds[0])
        guard spawned == 0 else {
            close(fds[1])
            return false
        }
        // The pager owns the terminal now: Ctrl-C is for it, not for us.
        let previous = signal(SIGINT, SIG_IGN)
        defer { signal(SIGINT, previous) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }   // the user quit the pager early (EPIPE): fine
            offset += n
        }
        close(fds[1])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // 126/127: the shell could not run the pager, so nobody saw the text.
        let exited = (status & 0x7F) == 0, code = (status >> 8) & 0xFF
        return !(exited && (code == 126 || code == 127))
    }
}
