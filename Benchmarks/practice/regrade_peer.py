#!/usr/bin/env python3
"""Peer for `practice regrade --all`: Python's sqlite3 reads the same database's 7-iron shots, grades
each with the same one-metric template (ball speed, higher is better), counts A/B/C and the A-shot
mean per session, and writes one row per session in a transaction. Prints seconds."""
import sqlite3, sys, time

db, a_min, b_min = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
t0 = time.perf_counter()
con = sqlite3.connect(db, isolation_level=None)
per = {}
for session, speed in con.execute("SELECT session_id, ball_speed_mph FROM shots WHERE club = '7i' ORDER BY session_id, row_index"):
    s = per.setdefault(session, [0, 0, 0, 0, 0.0])
    g = 0 if speed is not None and speed >= a_min else (1 if speed is not None and speed >= b_min else 2)
    s[g] += 1
    s[3] += 1
    if g == 0:
        s[4] += speed
con.execute("CREATE TEMP TABLE regraded (session_id INTEGER, a INTEGER, b INTEGER, c INTEGER, shots INTEGER, a_mean REAL)")
con.execute("BEGIN")
for session, (a, b, c, n, total) in per.items():
    con.execute("INSERT INTO regraded VALUES (?, ?, ?, ?, ?, ?)", (session, a, b, c, n, total / a if a else None))
con.execute("COMMIT")
print(f"{time.perf_counter() - t0:.4f}")
