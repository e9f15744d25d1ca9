// Stopping a server process the tests started: SIGTERM, up to 20 s to finish, then SIGKILL; always reaped.

import Foundation

func stopServer(_ process: Process) {
    if process.isRunning {
        process.terminate()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    process.waitUntilExit()
}
