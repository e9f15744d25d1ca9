// clubhouse: wires the front ends (command line, serve) to the process; they build the host on the
// platform layer. Everything else lives in those modules.

import ClubhouseFrontEnds
#if canImport(Glibc)
import Glibc
#endif

exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
