#!/usr/bin/env python3
"""`clubhouse scorecard player list` of several release build folders beside the sqlite3 tool's same query on
the same file, the order shuffled every round (cli_path.py runs its commands in a fixed order, and the
place in it moves a build's CPU by about 2 %), CPU = user + system of the child from wait4.

Usage: Benchmarks/startup/ab_player_list.py BASE_DIR OTHER_DIR [MORE_DIR …] ROUNDS
Prints each build's median CPU, its ratio to sqlite3, and each other build's ratio to BASE_DIR.
"""
import os, re, sys, random, statistics, subprocess, tempfile, shutil
dirs = [os.path.abspath(d) for d in sys.argv[1:-1]]; rounds = int(sys.argv[-1])
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
scratch = tempfile.mkdtemp(prefix="clubhouse-ab-")
env = dict(os.environ, CLUBHOUSE_DATA_DIR=scratch + "/data", XDG_CACHE_HOME=scratch + "/cache", SWIFT_BACKTRACE="enable=no")
env.pop("CLUBHOUSE_CONFIG", None); env.pop("CLUBHOUSE_SITE", None)
subprocess.run([dirs[0] + "/clubhouse", "-q", "scorecard", "demo", "--out", scratch + "/out"], env=env, check=True, stdout=subprocess.DEVNULL)
db = scratch + "/data/default/org.clubhouse.scorecard.sqlite"
schema = open(root + "/Plugins/Scorecard/Sources/ScorecardCore/Store/ScorecardSchema.swift").read()
query = " ".join(re.search(r'selectPlayerSummaries = """\n(.*?)"""', schema, re.S).group(1).split())
sqlite3 = shutil.which("sqlite3") or sys.exit("ab_player_list: the sqlite3 tool is needed")
cmds = [(d, [d + "/clubhouse", "scorecard", "player", "list"]) for d in dirs] + [("sqlite3", [sqlite3, "-batch", "-readonly", db, query])]
for _, a in cmds: subprocess.run(a, env=env, check=True, stdout=subprocess.DEVNULL)
cpu = {k: [] for k, _ in cmds}
devnull = os.open(os.devnull, os.O_WRONLY)
for r in range(rounds):
    order = cmds[:]; random.shuffle(order)
    for k, a in order:
        pid = os.posix_spawn(a[0], a, env, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, st, ru = os.wait4(pid, 0)
        if st != 0: sys.exit(f"ab_player_list: {' '.join(a)} failed ({st})")
        cpu[k].append(ru.ru_utime + ru.ru_stime)
med = {k: statistics.median(v) for k, v in cpu.items()}
load = open("/proc/loadavg").read().split()[:3]
print(f"A/B {rounds} rounds, shuffled order, load {' '.join(load)}")
for k in cpu: print(f"  {k:40s} cpu {med[k]*1e3:6.3f} ms  mean {statistics.mean(cpu[k])*1e3:6.3f}  / sqlite3 {med[k]/med['sqlite3']:.3f}x")
base = dirs[0]
for d in dirs[1:]:
    print(f"  {d} / {base}: median-of-medians {med[d]/med[base]:.3f}x, mean {statistics.mean(cpu[d])/statistics.mean(cpu[base]):.3f}x")
shutil.rmtree(scratch, ignore_errors=True)
