#!/usr/bin/env python3
"""Peer for `practice live`: parses N Open Connect messages with json.loads, grades each with a
one-metric template, and inserts it into SQLite (WAL, synchronous=NORMAL, like the host) in its
own transaction. Prints the median and p95 per-shot milliseconds from 'arrival' to commit."""
import json, sqlite3, statistics, sys, time

n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("PRAGMA journal_mode=WAL")
con.execute("PRAGMA synchronous=NORMAL")
con.execute("CREATE TABLE IF NOT EXISTS live_shots (id INTEGER PRIMARY KEY, shot_number INTEGER UNIQUE, ball_speed REAL, carry REAL, grade TEXT, raw TEXT)")
lat = []
for i in range(1, n + 1):
    raw = json.dumps({"DeviceID": "peer", "Units": "Yards", "ShotNumber": i, "APIversion": "1",
                      "BallData": {"Speed": 100 + i % 9, "VLA": 20.1, "HLA": -1.2, "TotalSpin": 5000, "SpinAxis": 2.0, "CarryDistance": 150.2},
                      "ShotDataOptions": {"ContainsBallData": True, "IsHeartBeat": False}})
    t0 = time.perf_counter()
    m = json.loads(raw)
    speed = m["BallData"]["Speed"]
    grade = "A" if speed >= 104 else ("B" if speed >= 100 else "C")
    con.execute("BEGIN")
    con.execute("INSERT INTO live_shots (shot_number, ball_speed, carry, grade, raw) VALUES (?, ?, ?, ?, ?)",
                (m["ShotNumber"], speed, m["BallData"]["CarryDistance"], grade, raw))
    con.execute("COMMIT")
    lat.append((time.perf_counter() - t0) * 1000)
lat.sort()
print(f"median {statistics.median(lat):.3f} ms p95 {lat[int(len(lat) * 0.95) - 1]:.3f} ms over {n}")
