// clubhouse: wires the host library to the process. Everything else lives in ClubhouseHost.

import ClubhouseHost
#if canImport(Glibc)
import Glibc
#endif

exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
