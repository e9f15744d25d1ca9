#!/usr/bin/env python3
"""Store-path benchmark over `clubhouse serve` (issue 19): one long-lived server per build, one
connection each (stdio), the same typical reads called again and again on identical seeded data.
Process start and plugin loading happen once, before timing. Builds take turns batch by batch.

Per call: wall time seen by the client (request written → reply line read), and the server
process's CPU time (utime + stime from /proc, all threads), which other load disturbs less.
Usage: serve_bench.py --build LABEL=CLUBHOUSE=DATA_DIR [--build …] [--rounds R] [--calls N]
"""
import argparse, hashlib, json, os, statistics, subprocess, sys, time

CALLS = [("scorecard", "player list"), ("practice", "sessions")]
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


class Server:
    def __init__(self, label, binary, data):
        self.label = label
        self.proc = subprocess.Popen([binary, "--data-dir", data, "-q", "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.out = self.proc.stdout
        self.next_id = 0

    def call(self, plugin, command):
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": "clubhouse.call",
                   "params": {"plugin": plugin, "command": command, "arguments": {}}}
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        line = self.out.readline()
        reply = json.loads(line)
        if "result" not in reply:
            sys.exit(f"{self.label}: {plugin} {command} failed: {line[:300]!r}")
        return reply["result"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", action="append", required=True, help="LABEL=CLUBHOUSE=DATA_DIR")
    ap.add_argument("--rounds", type=int, default=7, help="batches per build and command")
    ap.add_argument("--calls", type=int, default=20, help="calls per batch")
    args = ap.parse_args()
    servers = [Server(*b.split("=", 2)) for b in args.build]
    try:
        for plugin, command in CALLS:
            digests = {}
            for s in servers:  # warm-up: load, migrate, fill caches
                result = s.call(plugin, command)
                text = json.dumps(result, sort_keys=True, separators=(",", ":")).encode()
                digests[s.label] = (len(text), hashlib.sha256(text).hexdigest()[:12])
                for _ in range(3):
                    s.call(plugin, command)
            walls = {s.label: [] for s in servers}
            cpus = {s.label: [] for s in servers}
            for _ in range(args.rounds):
                for s in servers:
                    c0, t0 = cpu_seconds(s.proc.pid), time.perf_counter()
                    for _ in range(args.calls):
                        s.call(plugin, command)
                    t1, c1 = time.perf_counter(), cpu_seconds(s.proc.pid)
                    walls[s.label].append((t1 - t0) / args.calls)
                    cpus[s.label].append((c1 - c0) / args.calls)
            print(f"{plugin} {command}: medians of {args.rounds} batches of {args.calls} calls, one connection")
            for s in servers:
                size, digest = digests[s.label]
                print(f"  {s.label:8} wall {statistics.median(walls[s.label]) * 1e3:8.2f} ms"
                      f"  cpu {statistics.median(cpus[s.label]) * 1e3:8.2f} ms"
                      f"  (wall min {min(walls[s.label]) * 1e3:.2f}, max {max(walls[s.label]) * 1e3:.2f})"
                      f"  result {size} bytes sha256 {digest}")
            a = servers[0]
            for b in servers[1:]:
                print(f"  ratio {a.label}/{b.label}: wall {statistics.median(walls[a.label]) / statistics.median(walls[b.label]):.2f}x"
                      f"  cpu {statistics.median(cpus[a.label]) / statistics.median(cpus[b.label]):.2f}x")
            sys.stdout.flush()
    finally:
        for s in servers:
            s.close()


if __name__ == "__main__":
    main()
