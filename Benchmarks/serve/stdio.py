#!/usr/bin/env python3
# serve on stdio: one request at a time (round trip) and pipelined (throughput), each binary in turn,
# medians of 7 rounds. Usage: Benchmarks/serve/stdio.py CLUBHOUSE [CLUBHOUSE …] (release builds whose
# folder holds libNotesC.so). Issue 27: stdio is served by the socket transport's loop.
import subprocess, os, sys, time, json
bins = sys.argv[1:]
ping = b'{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"notes","command":"ping","arguments":{}}}\n'
def start(b):
    env = dict(os.environ, CLUBHOUSE_DATA_DIR="/tmp/clubhouse-stdio-bench")
    return subprocess.Popen([b, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, bufsize=0)
def roundtrip(b, n=2000):
    p = start(b); out = p.stdout
    p.stdin.write(ping); out.readline()
    t = time.perf_counter(); c0 = os.times()
    for _ in range(n):
        p.stdin.write(ping); out.readline()
    dt = time.perf_counter() - t
    p.stdin.close(); p.wait()
    return dt / n * 1e6
def pipelined(b, n=20000):
    p = start(b)
    import threading
    def w():
        p.stdin.write(ping * n); p.stdin.close()
    t = time.perf_counter(); th = threading.Thread(target=w); th.start()
    lines = 0
    while lines < n:
        d = p.stdout.read1(65536) if hasattr(p.stdout, "read1") else os.read(p.stdout.fileno(), 65536)
        if not d: break
        lines += d.count(b"\n")
    dt = time.perf_counter() - t
    th.join(); p.wait()
    return lines / dt
res = {b: ([], []) for b in bins}
for r in range(7):
    for b in bins:
        res[b][0].append(roundtrip(b)); res[b][1].append(pipelined(b))
import statistics
for b in bins:
    print(b, "round trip median %.1f µs" % statistics.median(res[b][0]), "pipelined median %.0f req/s" % statistics.median(res[b][1]))
