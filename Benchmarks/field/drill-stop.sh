#!/bin/sh
# Issue 30's full drill-stop sweep: a simulated drill interrupted at 100 random moments in each
# isolation (in process, `process`, `sandbox`), the simulator must receive the stop within 200 ms
# every time and every session must be stored (Tests/EndToEndTests/DrillStopEndToEndTests.swift;
# the suite runs 25 moments per isolation). Prints each isolation's summary line (runs, stop delay
# median and max, exits) and the seed of any failure.
#   Benchmarks/field/drill-stop.sh [TRIALS]     (from the repository's root; TRIALS defaults to 100)
set -eu
trials="${1:-100}"
swift build --build-tests >/dev/null
uptime
CLUBHOUSE_DRILL_STOP_TRIALS="$trials" swift test --skip-build --filter DrillStopEndToEndTests 2>&1 |
    grep -E "DrillStopEndToEndTests (in-process|process|sandbox):|error:|Executed [0-9]+ tests" | sort -u
uptime
