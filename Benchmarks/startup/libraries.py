#!/usr/bin/env python3
"""What each shared library `clubhouse` starts with costs a process, CPU time (issue 33, item 5).

`/bin/true` is started with LD_PRELOAD naming a growing set of the libraries `clubhouse` needs (their own
DT_NEEDED come with them, as at a real start): the dynamic loader maps and relocates them and runs their
initializers, and the process does nothing else. The sets take turns, round after round; each figure
is the median CPU time (user + system of the child, from wait4). The step from one set to the next is what
those libraries add to every `clubhouse` command, `--version` included, whatever the command does.
Which of them the plugin needs as well is printed beside each step (a command that loads the plugin pays
for them even when `clubhouse` itself no longer needs them).

Usage: Benchmarks/startup/libraries.py [BIN_DIR] [--rounds N] (BIN_DIR: .build/release; needs
`clubhouse` and `libScorecardPlugin.so` there, and readelf and ldd).
"""
import os, re, shutil, statistics, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
args = sys.argv[1:]
rounds = 41
if "--rounds" in args:
    i = args.index("--rounds"); rounds = int(args[i + 1]); del args[i:i + 2]
bin_dir = os.path.abspath(args[0] if args else os.path.join(root, ".build/release"))
clubhouse = os.path.join(bin_dir, "clubhouse")
plugin = os.path.join(bin_dir, "libScorecardPlugin.so")
for tool in ("readelf", "ldd"):
    if not shutil.which(tool):
        sys.exit(f"libraries: {tool} is needed (apt-get install binutils libc-bin)")
true = shutil.which("true") or "/bin/true"

def needed(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.*?)\]", out)

def resolved(path):
    out = subprocess.run(["ldd", path], capture_output=True, text=True, check=True).stdout
    return dict(re.findall(r"^\s*(\S+) => (\S+)", out, re.M))

host_needs = needed(clubhouse)
plugin_needs = set(needed(plugin))
paths = resolved(clubhouse)
# The groups in the order they are added; each library's own DT_NEEDED come with it.
groups = [
    ("the Swift runtime (libswiftCore)", ["libswiftCore.so"]),
    ("+ Concurrency (brings libdispatch, libBlocksRuntime, libstdc++)", ["libswift_Concurrency.so"]),
    ("+ _StringProcessing and _RegexParser", ["libswift_StringProcessing.so", "libswift_RegexParser.so"]),
    ("+ the Dispatch overlay (libswiftDispatch)", ["libswiftDispatch.so"]),
]
# What the groups load already, their own DT_NEEDED included (libdispatch comes with Concurrency).
named = set()
for _, libs in groups:
    for lib in libs:
        named.add(lib)
        named.update(resolved(paths[lib]) if lib in paths else {})
rest = [lib for lib in host_needs if lib not in named and lib in paths and not lib.startswith(("libc.so", "libm.so"))]
groups.append(("+ the rest clubhouse needs (" + ", ".join(rest) + ")", rest))
missing = [lib for _, libs in groups for lib in libs if lib not in paths]
if missing:
    sys.exit(f"libraries: {clubhouse} does not need {', '.join(missing)} (the groups here are out of date)")

sets = []
preload = []
for label, libs in groups:
    preload += [paths[lib] for lib in libs]
    sets.append((label, " ".join(preload), [lib for lib in libs if lib in plugin_needs]))

cpu = [[] for _ in sets]
devnull = os.open(os.devnull, os.O_WRONLY)
for r in range(rounds + 2):
    for k, (_, pre, _) in enumerate(sets):
        env = dict(os.environ, LD_PRELOAD=pre)
        pid = os.posix_spawn(true, [true], env, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
        _, status, usage = os.wait4(pid, 0)
        if status != 0:
            sys.exit(f"libraries: {true} with LD_PRELOAD={pre} failed ({status})")
        if r >= 2:
            cpu[k].append(usage.ru_utime + usage.ru_stime)
load = open("/proc/loadavg").read().split()[:3]
print(f"libraries clubhouse starts with: /bin/true preloading them, median of {rounds} rounds (CPU = user + system), load {' '.join(load)}")
previous = None
for (label, _, in_plugin), samples in zip(sets, cpu):
    m = statistics.median(samples)
    step = "" if previous is None else f"  step {1e3 * (m - previous):+5.2f} ms"
    also = f"  (the plugin needs {', '.join(in_plugin)} too)" if in_plugin else ""
    print(f"  {label:70s} cpu {m * 1e3:5.2f} ms{step}{also}")
    previous = m
medians = [statistics.median(c) for c in cpu]
print(f"@figure startup.libraries.swift-core.cpu {medians[0]:.6f} s")
print(f"@figure startup.libraries.all.cpu {medians[-1]:.6f} s")
