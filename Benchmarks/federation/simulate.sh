#!/usr/bin/env bash
# The association simulation (issue 34): 200 clubs, 100,000 golfers, 2,000,000 rounds pushed through the
# real path into a PostgreSQL cluster of its own and every Handicap Index of record computed there
# (Benchmarks/Sources/clubhouse-bench/FederationSimulation.swift). Release build; always stops the cluster.
# Usage: Benchmarks/federation/simulate.sh [--clubs C] [--golfers G] [--rounds R] [--batch B]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] && command -v psql >/dev/null || { echo "skipping: PostgreSQL is not installed (.ci/deps installs postgresql)"; exit 0; }
swift build -c release --product clubhouse-bench >/dev/null
folder=$(mktemp -d /tmp/clubhouse-federation-sim.XXXXXX)
as_server=()
if [ "$(id -u)" -eq 0 ]; then chown postgres: "$folder"; as_server=(runuser -u postgres --); fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
stop() { "${as_server[@]}" "$bin/pg_ctl" -D "$folder/data" -m immediate -w stop >/dev/null 2>&1 || true; rm -rf "$folder"; }
trap stop EXIT
"${as_server[@]}" "$bin/initdb" -D "$folder/data" -U clubhouse_admin --auth-local=trust -E UTF8 --locale=C --no-sync >/dev/null
"${as_server[@]}" "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w \
  -o "-p $port -k $folder -c listen_addresses='' -c shared_buffers=512MB -c max_wal_size=4GB -c work_mem=64MB" start >/dev/null
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}'), $(nproc) cores; $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
.build/release/clubhouse-bench federation-sim --admin "postgresql://clubhouse_admin@/postgres?host=$folder&port=$port" \
  --site "postgresql://ROLE@/postgres?host=$folder&port=$port" "$@"
