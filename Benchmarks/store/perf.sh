#!/bin/sh
# Profiles one build's `clubhouse serve` running one command again and again on a seeded club
# (seed.sh), then prints where the plugin call's CPU goes (perf_share.py).
# Usage: Benchmarks/store/perf.sh CLUBHOUSE SEEDED_DATA_DIR PLUGIN "COMMAND" [SECONDS]
# e.g.   Benchmarks/store/perf.sh .build/release/clubhouse /tmp/seed scorecard "player list"
set -eu
cd "$(dirname "$0")/../.."
ch=$1; seed=$2; plugin=$3; command=$4; seconds=${5:-6}
command -v perf >/dev/null || { echo "perf.sh: perf is needed"; exit 1; }
scratch=$(mktemp -d /tmp/clubhouse-store-perf.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
cp -r "$seed" "$scratch/data"
python3 - "$ch" "$scratch/data" "$plugin" "$command" "$scratch/pid" "$((seconds + 4))" <<'PY' &
import json, subprocess, sys, time
binary, data, plugin, command, pidfile = sys.argv[1:6]
p = subprocess.Popen([binary, "--data-dir", data, "-q", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL)
def call(i):
    request = {"jsonrpc": "2.0", "id": i, "method": "clubhouse.call",
               "params": {"plugin": plugin, "command": command, "arguments": {}}}
    p.stdin.write((json.dumps(request) + "\n").encode()); p.stdin.flush()
    return p.stdout.readline()
call(0)
open(pidfile, "w").write(str(p.pid))
deadline = time.time() + float(sys.argv[6])
i = 1
while time.time() < deadline:
    call(i); i += 1
p.stdin.close(); p.wait()
PY
while [ ! -s "$scratch/pid" ]; do sleep 0.2; done
perf record -F 999 -g -p "$(cat "$scratch/pid")" -o "$scratch/perf.data" -- sleep "$seconds" >/dev/null 2>&1
wait
python3 Benchmarks/store/perf_share.py "$scratch/perf.data"
