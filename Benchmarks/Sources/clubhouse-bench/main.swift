// clubhouse-bench: release-build benchmarks, one area per file. Run through Benchmarks/run.sh,
// which also runs the peers from ../shared/peers in the same session and writes the medians.
// Usage: clubhouse-bench AREA [options]   (AREA: platform, startup, access, putting, putting-processing, globe, tennis, practice, scorecard)

#if canImport(Glibc)
import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
guard let area = arguments.first else {
    print("usage: clubhouse-bench platform|putting|putting-processing|globe|tennis|practice|scorecard [options]")
    exit(2)
}
let rest = Array(arguments.dropFirst())
switch area {
case "platform": platformBench(rest)
case "access": accessBench(rest)
case "signing": signingBench(rest)
case "isolation": isolationBench(rest)
case "sandbox": sandboxBench(rest)
case "serve": serveBench(rest)
case "rpc-load": rpcLoadBench(rest)
case "sse-fanout": sseFanoutBench(rest)
case "services": servicesBench(rest)
case "store": storeBench(rest)
case "federation": federationBench(rest)
case "federation-sim": federationSimulation(rest)
case "putting": puttingBench(rest)
case "putting-processing": puttingProcessingBench(rest)
case "putting-sweep": puttingSweepBench(rest)
case "putting-converge": puttingConvergenceBench(rest)
case "putting-calibrate": puttingCalibrationBench(rest)
case "globe": globeBench(rest)
case "globe-sweep": globeSweepBench(rest)
case "tennis": tennisBench(rest)
case "tennis-robust": tennisRobustBench(rest)
case "tennis-sweep": tennisSweepBench(rest)
case "practice": practiceBench(rest)
case "scorecard": scorecardBench(rest)
case "scorecard-formats": scorecardFormatsBench(rest)
case "startup": startupBench(rest)
default:
    print("clubhouse-bench: unknown area '\(area)'")
    exit(2)
}
