#!/usr/bin/env python3
"""Peer for `clubhouse-bench signing`: Python's `cryptography` (OpenSSL's Ed25519 underneath)
verifying the same signature of the same 600-byte message with the same key, in a loop.
Prints the median per verification, wall and process CPU time, like the Swift side."""
import statistics
import sys
import time

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

folder = sys.argv[1]
calls = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
samples = int(sys.argv[3]) if len(sys.argv) > 3 else 11
key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(open(f"{folder}/key.hex").read()))
message = open(f"{folder}/message.bin", "rb").read()
signature = bytes.fromhex(open(f"{folder}/signature.hex").read())
key.verify(signature, message)
walls, cpus = [], []
for sample in range(samples + 1):
    w0, c0 = time.perf_counter(), time.thread_time()
    for _ in range(calls):
        key.verify(signature, message)
    if sample > 0:
        walls.append((time.perf_counter() - w0) / calls)
        cpus.append((time.thread_time() - c0) / calls)
wall, cpu = statistics.median(walls), statistics.median(cpus)
print(f"cryptography {__import__('cryptography').__version__} verify, same message:  {wall * 1e6:.1f} µs wall, {cpu * 1e6:.1f} µs CPU  ({int(1 / cpu)} verifications/s per core)")
