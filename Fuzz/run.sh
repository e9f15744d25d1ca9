#!/usr/bin/env bash
# Builds the fuzz targets (libFuzzer + AddressSanitizer, release) and runs each for a fixed time.
#   Fuzz/run.sh [SECONDS] [TARGET…]     SECONDS per target (default 60); targets default to all:
#                                       json config geojson frame ballmachine canonical rapsodo stored-rows http
# Swift's own backtracer is turned off so that libFuzzer's crash handler saves the input.
# Environment: NO_BUILD=1 skips the build; FUZZ_OUT=DIR holds corpora, crashes and logs
# (default Fuzz/.build/fuzz-out, git-ignored); EXTRA_ARGS are passed to every libFuzzer run.
# Prints one line per target: executions, executions per second, corpus size, crash or not.
# Exits 1 when a target crashed, hung or ran out of memory; the input is in FUZZ_OUT/artifacts.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(json config geojson frame ballmachine canonical rapsodo stored-rows http)
out="${FUZZ_OUT:-$here/.build/fuzz-out}"

if [ "${NO_BUILD:-0}" != 1 ]; then
    echo "building fuzz targets (release, -sanitize=fuzzer,address)…"
    if ! (cd "$here" && swift build -c release -Xswiftc -sanitize=fuzzer,address 2>&1 | grep -Ev '^\[|Cannot export local symbol'); then :; fi
    [ -x "$here/.build/release/fuzz-json" ] || { echo "build failed" >&2; exit 2; }
fi

"$here/seeds.sh" "$out/corpus" > /dev/null
mkdir -p "$out/artifacts" "$out/logs"

max_len() {
    case "$1" in
        frame) echo 128 ;;
        ballmachine) echo 512 ;;
        *) echo 8192 ;;
    esac
}

status=0
printf '%-12s %8s %12s %10s %8s  %s\n' target seconds executions "exec/s" corpus result
for t in "${targets[@]}"; do
    bin="$here/.build/release/fuzz-$t"
    [ -x "$bin" ] || { echo "no such target: $t" >&2; status=2; continue; }
    log="$out/logs/$t.log"
    start=$(date +%s)
    # -timeout: an input that runs longer than 10 s is a hang; -rss_limit_mb guards runaway memory.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "$bin" "$out/corpus/$t" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$t")" \
        -dict="$here/dict/$t.dict" -print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" \
        ${EXTRA_ARGS:-} > "$log" 2>&1
    rc=$?
    elapsed=$(( $(date +%s) - start ))
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    corpus=$(ls "$out/corpus/$t" | wc -l)
    if [ $rc -eq 0 ]; then
        result=ok
    else
        status=1
        artifact=$(grep -o "Test unit written to [^ ]*" "$log" | tail -1 | sed 's/Test unit written to //')
        kind=$(grep -Eo 'Swift runtime failure: [a-z ]+|Fatal error: .*' "$log" | head -1)
        [ -n "$kind" ] || kind=$(grep -Eo 'ERROR: (libFuzzer|AddressSanitizer): [a-z -]+' "$log" | head -1)
        result="CRASH ($kind) → ${artifact:-see $log}"
    fi
    printf '%-12s %8s %12s %10s %8s  %s\n' "$t" "$elapsed" "${execs:-?}" "${rate:-?}" "$corpus" "$result"
done
exit $status
