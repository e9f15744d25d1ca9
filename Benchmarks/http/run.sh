#!/usr/bin/env bash
# serve --http beside serve --socket (JSON-RPC), one release server, the same run (issue 28):
# a cached best line read through GreenReader's mount — the job poll of a finished job,
# GET /courses/presidio/holes/1/bestline/JOB with a token — by wrk with 50 keep-alive clients, then the
# same call (`putting greenreader job`) through the Unix-socket JSON-RPC by 50 clients with one request
# in flight each (clubhouse-bench rpc-load), round after round. Prints each round, then the medians:
# requests/s, p99 latency, and the server's CPU per request (from /proc, user + system).
#   Benchmarks/http/run.sh [ROUNDS] [SECONDS]      (default 5 rounds of 10 s each side)
# BIN=DIR runs another build's binaries; SERVE_OPTIONS="--http-reply-cache-bytes 0" passes options to serve
# (that one measures the poll without the reply cache: every request calls the plugin).
# Needs ../shared/data/putting/presidio and wrk (installed from Debian's packages when missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-5}"
seconds="${2:-10}"
bin="${BIN:-.build/release}"
presidio="../shared/data/putting/presidio"
[ -d "$presidio" ] || { echo "skipped: $presidio is absent (the shared data lives beside the repository)"; exit 0; }
if ! command -v wrk >/dev/null; then
    echo "installing wrk (Debian's package)…" >&2
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get install -y -qq wrk >/dev/null
fi
[ -x "$bin/clubhouse" ] && [ -x "$bin/clubhouse-bench" ] || swift build -c release >&2
scratch="$(mktemp -d /tmp/clubhouse-http-bench.XXXXXX)"
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; rm -rf "$scratch"; }
trap cleanup EXIT
cat > "$scratch/plugins.json" <<JSON
{"sites": {"bench": {"http": {"mount": {"putting": "/"}},
  "plugins": {"putting": {"id": "org.clubhouse.putting", "grants": ["storage"]}}}}}
JSON
ch() { CLUBHOUSE_DATA_DIR="$scratch/data" "$bin/clubhouse" --config "$scratch/plugins.json" --site bench "$@"; }
ch putting course import "$presidio" --id presidio --name Presidio >/dev/null
job="$(ch --json putting greenreader bestline --courseId presidio --holeNum 1 --ballXFt -10 --ballZFt 5 --holeXFt 0 --holeZFt 0 --stimpFt 10 \
       | python3 -c 'import json,sys; print(json.load(sys.stdin)["jobId"])')"
ch putting job run "$job" >/dev/null 2>&1 || true
for _ in $(seq 1 100); do
    state="$(ch --json putting job "$job" | python3 -c 'import json,sys; print(json.load(sys.stdin)["job"]["state"])')"
    [ "$state" = completed ] && break
    sleep 0.2
done
[ "$state" = completed ] || { echo "the best-line job did not complete ($state)"; exit 1; }
header=()
if ch token --help >/dev/null 2>&1; then
    token="$(ch --json token create --name benchmark --scope putting:read | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"
    header=(-H "Authorization: Bearer $token")
fi
CLUBHOUSE_DATA_DIR="$scratch/data" "$bin/clubhouse" --config "$scratch/plugins.json" --site bench serve \
    --socket "$scratch/rpc.sock" --http 127.0.0.1:0 ${SERVE_OPTIONS:-} 2> "$scratch/serve.log" &
server=$!
for _ in $(seq 1 200); do grep -q "serving HTTP/1.1" "$scratch/serve.log" && break; sleep 0.05; done
port="$(grep -o 'http://127.0.0.1:[0-9]*' "$scratch/serve.log" | head -1 | cut -d: -f3)"
url="http://127.0.0.1:$port/courses/presidio/holes/1/bestline/$job"
status="$(curl -s -o "$scratch/first.json" -w '%{http_code}' "${header[@]}" "$url")"
[ "$status" = 200 ] || { echo "GET $url answered $status: $(cat "$scratch/first.json")"; exit 1; }
echo "# one response: $(wc -c < "$scratch/first.json") bytes of {bestLine}; job $job; load $(cut -d' ' -f1-3 /proc/loadavg)"
request="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"clubhouse.call\",\"params\":{\"plugin\":\"putting\",\"command\":\"greenreader job\",\"arguments\":{\"courseId\":\"presidio\",\"holeNum\":1,\"jobId\":\"$job\"}}}"
ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
hz="$(getconf CLK_TCK)"
printf '%-6s %12s %9s %12s   %12s %9s %12s   %s\n' round "http req/s" "p99 ms" "cpu µs/req" "rpc req/s" "p99 ms" "cpu µs/req" "cpu ratio"
: > "$scratch/rows"
for round in $(seq 1 "$rounds"); do
    c0="$(ticks)"
    wrk -t2 -c50 -d"${seconds}s" --latency "${header[@]}" "$url" > "$scratch/wrk.txt"
    c1="$(ticks)"
    "$bin/clubhouse-bench" rpc-load --socket "$scratch/rpc.sock" --clients 50 --seconds "$seconds" --request "$request" > "$scratch/rpc.json"
    c2="$(ticks)"
    python3 - "$scratch/wrk.txt" "$scratch/rpc.json" "$c0" "$c1" "$c2" "$hz" "$round" >> "$scratch/rows" <<'PY'
import json, re, sys
wrk, rpc, c0, c1, c2, hz, rnd = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), *map(int, sys.argv[3:7]), sys.argv[7]
def ms(text):
    value, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
requests = int(re.search(r"(\d+) requests in", wrk).group(1))
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", wrk).group(1))
p99 = ms(re.search(r"99%\s+(\S+)", wrk).group(1))
bad = re.search(r"Non-2xx or 3xx responses: (\d+)", wrk)
if bad: print(f"# round {rnd}: {bad.group(1)} responses were not 200", file=sys.stderr)
http_cpu = (c1 - c0) / hz / requests * 1e6
rpc_cpu = (c2 - c1) / hz / rpc["requests"] * 1e6
print(json.dumps({"round": rnd, "http": rps, "http_p99": p99, "http_cpu": http_cpu, "rpc": rpc["requestsPerSecond"],
                  "rpc_p99": rpc["p99ms"], "rpc_cpu": rpc_cpu, "rpc_errors": rpc["errors"]}))
PY
    tail -1 "$scratch/rows" | python3 -c 'import json,sys; r=json.load(sys.stdin); print("%-6s %12.0f %9.2f %12.1f   %12.0f %9.2f %12.1f   %.2f" % (r["round"], r["http"], r["http_p99"], r["http_cpu"], r["rpc"], r["rpc_p99"], r["rpc_cpu"], r["http_cpu"] / r["rpc_cpu"]))'
done
python3 - "$scratch/rows" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
m = {k: statistics.median(r[k] for r in rows) for k in ["http", "http_p99", "http_cpu", "rpc", "rpc_p99", "rpc_cpu"]}
ratio = statistics.median(r["http_cpu"] / r["rpc_cpu"] for r in rows)
print("%-6s %12.0f %9.2f %12.1f   %12.0f %9.2f %12.1f   %.2f" % ("median", m["http"], m["http_p99"], m["http_cpu"], m["rpc"], m["rpc_p99"], m["rpc_cpu"], ratio))
print(f"# targets: HTTP ≥ 20,000 req/s ({'met' if m['http'] >= 20000 else 'not met'}), p99 ≤ 10 ms ({'met' if m['http_p99'] <= 10 else 'not met'}), "
      f"CPU per request ≤ 1.5× JSON-RPC's ({'met' if ratio <= 1.5 else 'not met'})")
PY
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
