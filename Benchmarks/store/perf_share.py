#!/usr/bin/env python3
"""Where a plugin call's CPU goes, from a `perf record -g` of a `clubhouse serve` process running
one command again and again (Benchmarks/store/perf.sh makes one). Each sample is given to the
innermost frame of its stack that is SQLite, PluginKit's storage kit (Storage, Statement, Row,
RowColumns, SQLValue, the row decoder), a plugin's SQL store adapter, or the rest of the plugin;
samples outside the plugin's call (the server, JSON-RPC) are counted apart.
Usage: perf_share.py PERF_DATA
"""
import collections, re, subprocess, sys

KIT = re.compile(r"9PluginKit(7Storage|9Statement|3Row|10RowColumns|8SQLValue|14StatementCache|13SQLRowDecoder)")


def category(frame):
    if "libsqlite3" in frame:
        return "sqlite"
    if KIT.search(frame):
        return "kit"
    if re.search(r"SQL\w*Store", frame):
        return "adapter"
    if re.search(r"\d\d?\w+Core|InstanceBox", frame):
        return "plugin-other"
    return None


def main():
    data = sys.argv[1]
    out = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"], capture_output=True, text=True).stdout
    counts = collections.Counter()
    for block in (b for b in out.split("\n\n") if b.strip()):
        frames = [line.strip() for line in block.splitlines() if line.strip()]
        cat = next((c for c in map(category, frames) if c), None)
        if cat is None:
            # SQLite is built without frame pointers: a mutex leaf whose chain stops after a frame
            # or two was called from inside SQLite (the host opens databases FULLMUTEX).
            cat = "sqlite" if frames and "pthread_mutex" in frames[0] and len(frames) <= 3 else "outside"
        counts[cat] += 1
    call = sum(v for k, v in counts.items() if k != "outside")
    print(f"{data}: {sum(counts.values())} samples, {call} in the plugin's call: "
          + ", ".join(f"{k} {counts[k] / max(call, 1) * 100:.0f}%" for k in ["sqlite", "kit", "adapter", "plugin-other"])
          + f"; outside the call (server, JSON-RPC): {counts['outside']} samples")


if __name__ == "__main__":
    main()
