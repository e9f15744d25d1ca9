#!/usr/bin/env python3
"""The issue-17 leaderboard target through the real stack: `clubhouse serve` (JSON-RPC on stdio) with
the scorecard plugin and its SQLite database. Fills a fresh data directory (the scorecard demo's
courses and players, then more players to a field of N), starts an N-player Stableford round on
Heron Bay Links (White), enters 18 seeded hole scores per player, then times `scorecard leaderboard`
requests from the request's write to the reply's last byte. Beside it, the same server's
`clubhouse.version` round trip (the JSON-RPC floor). Prints one JSON object.
Usage: leaderboard_serve.py CLUBHOUSE DATA_DIR [--players 144] [--runs 51] [--seed 17]"""
import argparse, json, os, random, shutil, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("clubhouse")
ap.add_argument("data")
ap.add_argument("--players", type=int, default=144)
ap.add_argument("--runs", type=int, default=51)
ap.add_argument("--seed", type=int, default=17)
a = ap.parse_args()
shutil.rmtree(a.data, ignore_errors=True)
env = dict(os.environ, CLUBHOUSE_DATA_DIR=a.data)
with tempfile.TemporaryDirectory() as out:
    subprocess.run([a.clubhouse, "scorecard", "demo", "--out", out], env=env, check=True, stdout=subprocess.DEVNULL)

server = subprocess.Popen([a.clubhouse, "serve"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
next_id = 0

def call(method, params=None):
    global next_id
    next_id += 1
    request = {"jsonrpc": "2.0", "id": next_id, "method": method}
    if params is not None:
        request["params"] = params
    t0 = time.perf_counter()
    server.stdin.write((json.dumps(request) + "\n").encode())
    while True:
        line = server.stdout.readline()
        if not line:
            sys.exit(f"serve closed while answering {method}")
        reply = json.loads(line)
        if reply.get("id") == next_id:
            break  # progress notifications have no id
    elapsed = time.perf_counter() - t0
    if "error" in reply:
        sys.exit(f"{method} {params}: {reply['error']}")
    return reply["result"], elapsed

def scorecard(command, **arguments):
    return call("clubhouse.call", {"plugin": "scorecard", "command": command, "arguments": arguments})

players = [p["name"] for p in scorecard("player list")[0]["players"]]
for n in range(len(players) + 1, a.players + 1):
    scorecard("player add", name=f"Field player {n}")
    players.append(f"Field player {n}")
players = players[:a.players]
round_id = scorecard("round start", course="Heron Bay Links", tee="White", players=",".join(players),
                     format="stableford")[0]["round"]["id"]
rng = random.Random(a.seed)
for name in players:
    for hole in range(1, 19):
        scorecard("score", round=round_id, player=name, hole=hole, strokes=max(1, round(rng.gauss(5.2, 1.3))))

board, _ = scorecard("leaderboard", round=round_id)
lines = board.get("stableford") or []
times, floor = [], []
for _ in range(a.runs):
    times.append(scorecard("leaderboard", round=round_id)[1])
    floor.append(call("clubhouse.version")[1])
server.stdin.close()
server.wait(timeout=30)
print(json.dumps({
    "players": len(lines), "holes": 18, "round": round_id,
    "leader": lines[0]["name"] if lines else None, "leader_points": lines[0]["points"] if lines else None,
    "leaderboard_median_ms": statistics.median(times) * 1e3, "leaderboard_min_ms": min(times) * 1e3,
    "leaderboard_p90_ms": sorted(times)[int(0.9 * (len(times) - 1))] * 1e3,
    "version_round_trip_median_ms": statistics.median(floor) * 1e3, "runs": a.runs,
}, indent=1))
