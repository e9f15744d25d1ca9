#!/usr/bin/env bash
# An SSE leaderboard under serve --http (issue 28): SUBSCRIBERS streams of GET /api/scorecard/events listen
# while SCORES scores are entered over HTTP one at a time (50 ms apart); for each score, the time until the
# last subscriber has it (the target: ≤ 50 ms at the p99 with 200 subscribers), beside the same POST with
# no subscriber at all (the peer: what entering a score costs by itself), one release server, same run.
# The server's CPU (user + system, /proc) per score is printed beside the wall times.
#   Benchmarks/http/sse.sh [ROUNDS] [SCORES] [SUBSCRIBERS]     (default 3 rounds, 100 scores, 200 subscribers)
# Prints a row per round and side, then one summary line.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-3}"
scores="${2:-100}"
subscribers="${3:-200}"
bin="${BIN:-.build/release}"
[ -x "$bin/clubhouse" ] && [ -x "$bin/clubhouse-bench" ] || swift build -c release >&2
scratch="$(mktemp -d /tmp/clubhouse-sse-bench.XXXXXX)"
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; rm -rf "$scratch"; }
trap cleanup EXIT
cat > "$scratch/plugins.json" <<JSON
{"sites": {"bench": {"plugins": {"scorecard": {"id": "org.clubhouse.scorecard", "grants": ["storage"]}}}}}
JSON
ch() { CLUBHOUSE_DATA_DIR="$scratch/data" "$bin/clubhouse" --config "$scratch/plugins.json" --site bench "$@"; }
cat > "$scratch/course.json" <<'JSON'
{"name": "Bench Links", "tees": [{"name": "White", "rating": 35.6, "slope": 124, "holes": [
  {"number": 1, "par": 4, "strokeIndex": 3}, {"number": 2, "par": 3, "strokeIndex": 9}, {"number": 3, "par": 5, "strokeIndex": 1},
  {"number": 4, "par": 4, "strokeIndex": 5}, {"number": 5, "par": 4, "strokeIndex": 7}, {"number": 6, "par": 3, "strokeIndex": 8},
  {"number": 7, "par": 4, "strokeIndex": 2}, {"number": 8, "par": 5, "strokeIndex": 4}, {"number": 9, "par": 4, "strokeIndex": 6}]}]}
JSON
ch scorecard course add "$scratch/course.json" >/dev/null
ch scorecard player add Ann >/dev/null
ch scorecard player add Bob >/dev/null
token="$(ch --json token create --name bench --scope scorecard:write | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"
CLUBHOUSE_DATA_DIR="$scratch/data" "$bin/clubhouse" --config "$scratch/plugins.json" --site bench serve --http 127.0.0.1:0 2> "$scratch/serve.log" &
server=$!
for _ in $(seq 1 200); do grep -q "serving HTTP/1.1" "$scratch/serve.log" && break; sleep 0.05; done
port="$(grep -o 'http://127.0.0.1:[0-9]*' "$scratch/serve.log" | head -1 | cut -d: -f3)"
ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
hz="$(getconf CLK_TCK)"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-12s %14s %14s %14s %14s %12s\n' round side "reach-all p50" "reach-all p99" "delivery p99" "POST p99" "cpu ms/score"
: > "$scratch/rows"
n=0
for round in $(seq 1 "$rounds"); do
    for side in none "$subscribers"; do
        n=$((n + 1))
        ch scorecard round start --course "Bench Links" --tee White --players Ann,Bob >/dev/null
        c0="$(ticks)"
        "$bin/clubhouse-bench" sse-fanout --port "$port" --token "$token" --round "$n" --scores "$scores" \
            --subscribers "$([ "$side" = none ] && echo 0 || echo "$side")" > "$scratch/out.json"
        c1="$(ticks)"
        python3 - "$scratch/out.json" "$c0" "$c1" "$hz" "$round" "$side" >> "$scratch/rows" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); c0, c1, hz = map(int, sys.argv[2:5])
r.update(round=sys.argv[5], side=sys.argv[6], cpu_ms=(c1 - c0) / hz * 1000 / r["scores"])
print(json.dumps(r))
PY
        tail -1 "$scratch/rows" | python3 -c 'import json,sys; r=json.load(sys.stdin); print("%-6s %-12s %14.2f %14.2f %14.2f %14.2f %12.2f%s" % (r["round"], ("subscribers " + r["side"]) if r["side"] != "none" else "no stream", r["reachAllP50ms"], r["reachAllP99ms"], r["deliveryP99ms"], r["responseP99ms"], r["cpu_ms"], ("  MISSING %d" % r["missing"]) if r["missing"] else ""))'
    done
done
python3 - "$scratch/rows" "$subscribers" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
fan = [r for r in rows if r["side"] != "none"]; alone = [r for r in rows if r["side"] == "none"]
m = lambda rs, k: statistics.median(r[k] for r in rs)
p99 = m(fan, "reachAllP99ms")
print(f"summary: {sys.argv[2]} subscribers, a score reaches all in p50 {m(fan, 'reachAllP50ms'):.2f} ms, p99 {p99:.2f} ms "
      f"(target ≤ 50 ms: {'met' if p99 <= 50 else 'not met'}); the POST alone p99 {m(alone, 'responseP99ms'):.2f} ms, with the streams {m(fan, 'responseP99ms'):.2f} ms; "
      f"server CPU {m(fan, 'cpu_ms'):.2f} ms per score with the streams, {m(alone, 'cpu_ms'):.2f} ms without; missing deliveries {sum(r['missing'] for r in fan)}")
PY
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
