#!/usr/bin/env bash
# Runs the whole test suite under a sanitizer, in its own scratch path (git-ignored):
#   Fuzz/sanitize.sh thread|address [extra swift test arguments…]   (eg: --filter IsolationEndToEndTests)
# The executables (clubhouse, the xctest bundle) link the sanitizer's runtime statically, and
# plugins are instrumented shared libraries loaded with dlopen: they need the runtime's entry
# points (__tsan_*, __asan_*) and interceptors exported from the executable. clang passes the
# runtime's .syms list for that; swiftc does not, so it is passed here along with
# Fuzz/sanitizer-exports.list. Swift's backtracer is turned off: under ThreadSanitizer it cannot
# suspend threads and ends in a tsan CHECK failure instead of a report. handle_segv=0 leaves
# SIGSEGV to the process as without a sanitizer: the isolation tests crash a plugin's runner on
# purpose and expect the host to report SIGSEGV, where the sanitizer would report and exit 66.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
kind="${1:?usage: Fuzz/sanitize.sh thread|address}"
shift
case "$kind" in
    thread) runtime=tsan ;;
    address) runtime=asan ;;
    *) echo "usage: Fuzz/sanitize.sh thread|address" >&2; exit 2 ;;
esac
resource="$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")/lib/swift/clang/lib/linux"
syms="$resource/libclang_rt.$runtime-x86_64.a.syms"
flags=(-Xlinker "--dynamic-list=$here/sanitizer-exports.list")
[ -f "$syms" ] && flags+=(-Xlinker "--dynamic-list=$syms")
cd "$root"
export SWIFT_BACKTRACE=enable=no
export TSAN_OPTIONS="${TSAN_OPTIONS:-handle_segv=0 second_deadlock_stack=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-handle_segv=0 detect_leaks=1}"
# Leaks are checked, less PluginKit's process-lifetime descriptors (see Fuzz/lsan.supp).
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$here/lsan.supp print_suppressions=0}"
exec swift test --sanitize="$kind" --scratch-path ".build-$runtime" "${flags[@]}" "$@"
