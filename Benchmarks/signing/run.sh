#!/usr/bin/env bash
# Issue 32: Ed25519 package-signature verification (ClubhouseHashing, written from RFC 8032)
# beside its peers in the same session: Python's `cryptography` (OpenSSL underneath) verifying the
# same signature of the same message with the same key, and `openssl speed ed25519`.
#   Benchmarks/signing/run.sh            (builds clubhouse-bench in release first)
#   Benchmarks/signing/run.sh --no-build
# BENCHMARKS.md's issue-32 section records one run.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
WORK="$ROOT/.build-peers/signing"
mkdir -p "$WORK"
if [ "${1:-}" != "--no-build" ]; then swift build -c release --product clubhouse-bench 2>&1 | tail -1; fi
BENCH="$ROOT/.build/release/clubhouse-bench"
echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$BENCH" signing --emit "$WORK"
for round in 1 2 3; do
  echo "-- round $round"
  "$BENCH" signing
  if python3 -c 'import cryptography' 2>/dev/null; then python3 "$ROOT/Benchmarks/signing/cryptography_peer.py" "$WORK"
  else echo "peer skipped: Python's cryptography package is not installed"; fi
done
if command -v openssl >/dev/null; then
  echo "-- openssl speed ed25519 (OpenSSL's own loop, 3 s per operation)"
  openssl speed -seconds 3 ed25519 2>/dev/null | tail -2
else
  echo "peer skipped: openssl is not installed"
fi
echo "(load after: $(cut -d' ' -f1-3 /proc/loadavg))"
