#!/usr/bin/env bash
# Federation push benchmark (issue 34): `clubhouse federation push` beside the raw `psql COPY` of the
# same rows, in one run, against a PostgreSQL cluster of its own (initdb in a temporary folder, a free
# port, the socket in that folder; run as the postgres user when this runs as root), always stopped.
# Usage: Benchmarks/federation/run.sh [--records N] [--batch B] [--samples K]   (release build)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] && command -v psql >/dev/null || { echo "skipping: PostgreSQL is not installed (.ci/deps installs postgresql)"; exit 0; }
swift build -c release --product clubhouse-bench >/dev/null
folder=$(mktemp -d /tmp/clubhouse-federation-pg.XXXXXX)
as_server=()
if [ "$(id -u)" -eq 0 ]; then chown postgres: "$folder"; as_server=(runuser -u postgres --); fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
stop() { "${as_server[@]}" "$bin/pg_ctl" -D "$folder/data" -m immediate -w stop >/dev/null 2>&1 || true; rm -rf "$folder"; }
trap stop EXIT
"${as_server[@]}" "$bin/initdb" -D "$folder/data" -U clubhouse_admin --auth-local=trust -E UTF8 --locale=C --no-sync >/dev/null
"${as_server[@]}" "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -o "-p $port -k $folder -c listen_addresses='' -c autovacuum=off" start >/dev/null
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}'), $(nproc) cores; $(date -u +%FT%TZ)"
postmaster=$(head -1 "$folder/data/postmaster.pid")
.build/release/clubhouse-bench federation --postmaster "$postmaster" --admin "postgresql://clubhouse_admin@/postgres?host=$folder&port=$port" \
  --site "postgresql://clubhouse_site_bench@/postgres?host=$folder&port=$port" "$@"
