// clubhouse: wires the front ends (command line, serve) to the process; they build the host on the
// platform layer. Everything else lives in those modules.

import CLoadOrder  // links libstdc++ ahead of the Swift runtime (Host/Sources/CLoadOrder/shim.h)
import ClubhouseFrontEnds
#if canImport(Glibc)
import Glibc
#endif

exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
