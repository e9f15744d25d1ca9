#!/usr/bin/env python3
"""The command line's whole path (issue 33), release build, beside its peers, in one run:
`clubhouse scorecard player list` against the sqlite3 tool running the query the plugin runs on the
same file, with `clubhouse --version` (process start, no site) and clubhouse-baseline (a Swift
program that links Foundation and SQLite and opens the database) as the floors, and with `--plugins-list`
`clubhouse plugins list` (catalogue cache warm) against clubhouse-baseline, the floor issue 33 names. The commands take
turns, round after round; each figure is the median CPU time (user + system of the child, from
wait4) beside the median wall time.

Usage: Benchmarks/startup/cli_path.py [BIN_DIR] [--rounds N] [--plugins-list] [--beside LABEL=BIN_DIR …]
(BIN_DIR: .build/release). Each `--beside` adds another build's `player list` and `--version` to the
same turns, on the same data (a build before a change, or the same build linked another way).
Needs only the products `clubhouse`, `ScorecardPlugin` and `clubhouse-baseline` (not clubhouse-bench,
whose cores take long to build) and the sqlite3 tool; `--plugins-list` wants every bundled plugin built
beside `clubhouse` (a missing one is listed as an error, which is not the command measured).
"""
import os, re, shutil, statistics, subprocess, sys, tempfile, time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
args = sys.argv[1:]
rounds = 31
plugins_list = "--plugins-list" in args
if plugins_list:
    args.remove("--plugins-list")
if "--rounds" in args:
    i = args.index("--rounds"); rounds = int(args[i + 1]); del args[i:i + 2]
beside = []
while "--beside" in args:
    i = args.index("--beside"); label, _, directory = args[i + 1].partition("="); del args[i:i + 2]
    beside.append((label, os.path.abspath(directory)))
bin_dir = os.path.abspath(args[0] if args else os.path.join(root, ".build/release"))
sqlite3 = shutil.which("sqlite3")
if not sqlite3:
    sys.exit("cli_path: the sqlite3 tool is needed (apt-get install sqlite3)")
# The query the plugin runs, read from its source so the two cannot drift.
schema = open(os.path.join(root, "Plugins/Scorecard/Sources/ScorecardCore/Store/ScorecardSchema.swift")).read()
query = " ".join(re.search(r'selectPlayerSummaries = """\n(.*?)"""', schema, re.S).group(1).split())

scratch = tempfile.mkdtemp(prefix="clubhouse-cli-path-")
try:
    data = os.path.join(scratch, "demo")
    env = dict(os.environ, CLUBHOUSE_DATA_DIR=data, SWIFT_BACKTRACE="enable=no", XDG_CACHE_HOME=os.path.join(scratch, "cache"))
    env.pop("CLUBHOUSE_CONFIG", None); env.pop("CLUBHOUSE_SITE", None)
    clubhouse = os.path.join(bin_dir, "clubhouse")
    subprocess.run([clubhouse, "-q", "scorecard", "demo", "--out", os.path.join(scratch, "out")], env=env, check=True, stdout=subprocess.DEVNULL)
    database = os.path.join(data, "default/org.clubhouse.scorecard.sqlite")
    commands = [
        ("clubhouse-baseline (Foundation + SQLite)", [os.path.join(bin_dir, "clubhouse-baseline"), database]),
        ("clubhouse --version", [clubhouse, "--version"]),
        ("clubhouse scorecard player list", [clubhouse, "scorecard", "player", "list"]),
        ("sqlite3, the same query on the same file", [sqlite3, "-batch", "-readonly", database, query]),
    ]
    if plugins_list:
        commands.append(("clubhouse plugins list", [clubhouse, "plugins", "list"]))
    first_beside = len(commands)
    per_beside = 3 if plugins_list else 2
    for label, directory in beside:
        other = os.path.join(directory, "clubhouse")
        commands += [(f"{label}: clubhouse --version", [other, "--version"]),
                     (f"{label}: clubhouse scorecard player list", [other, "scorecard", "player", "list"])]
        if plugins_list:
            commands.append((f"{label}: clubhouse plugins list", [other, "plugins", "list"]))
    # Warm: the catalogue cache and the kept summaries (as for a user from the second command on).
    for _, argv in commands:
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    cpu = [[] for _ in commands]; wall = [[] for _ in commands]
    devnull = os.open(os.devnull, os.O_WRONLY)
    for _ in range(rounds + 2):
        for k, (_, argv) in enumerate(commands):
            t0 = time.perf_counter()
            pid = os.posix_spawn(argv[0], argv, env, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
            _, status, usage = os.wait4(pid, 0)
            elapsed = time.perf_counter() - t0
            if status != 0:
                sys.exit(f"cli_path: {' '.join(argv)} failed ({status})")
            cpu[k].append(usage.ru_utime + usage.ru_stime); wall[k].append(elapsed)
    load = open("/proc/loadavg").read().split()[:3]
    print(f"command-line path, median of {rounds} rounds (commands taking turns; CPU = user + system), load {' '.join(load)}")
    med = [(statistics.median(c[2:]), statistics.median(w[2:])) for c, w in zip(cpu, wall)]
    for (label, _), (c, w) in zip(commands, med):
        print(f"  {label:44s} cpu {c * 1e3:6.2f} ms   wall {w * 1e3:6.2f} ms")
    ratio = med[2][0] / med[3][0]
    print(f"  player list / sqlite3: cpu {ratio:.2f}x (target <= 3), wall {med[2][1] / med[3][1]:.2f}x")
    if plugins_list:
        print(f"  plugins list / clubhouse-baseline: cpu {med[4][0] / med[0][0]:.2f}x (target <= 1.2), wall {med[4][1] / med[0][1]:.2f}x")
    for k, (label, _) in enumerate(beside):
        v, (c, w) = med[first_beside + per_beside * k], med[first_beside + per_beside * k + 1]
        print(f"  {label}: player list / sqlite3: cpu {c / med[3][0]:.2f}x, wall {w / med[3][1]:.2f}x; "
              f"this build / {label}: cpu {med[2][0] / c:.3f}x; --version {med[1][0] / v[0]:.3f}x")
        if plugins_list:
            pc, pw = med[first_beside + per_beside * k + 2]
            print(f"  {label}: plugins list / clubhouse-baseline: cpu {pc / med[0][0]:.2f}x, wall {pw / med[0][1]:.2f}x; "
                  f"this build / {label}: cpu {med[4][0] / pc:.3f}x")
    print(f"@figure startup.demo-data.player-list.cpu-ratio {ratio:.4f} x")
    print(f"@figure startup.demo-data.player-list.cpu {med[2][0]:.6f} s")
    print(f"@figure startup.version.cpu {med[1][0]:.6f} s")
finally:
    shutil.rmtree(scratch, ignore_errors=True)
