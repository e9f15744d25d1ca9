# Sourced by the federation benchmarks: a PostgreSQL cluster of their own (initdb in a temporary folder, a
# free port, the socket in that folder; run as the postgres user when this runs as root), always stopped.
# Sets $folder and $port; the caller gives the server's settings in $settings (-c name=value …).
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] && command -v psql >/dev/null || { echo "skipping: PostgreSQL is not installed (.ci/deps installs postgresql)"; exit 0; }
swift build -c release --product clubhouse-bench >/dev/null
folder=$(mktemp -d /tmp/clubhouse-federation-pg.XXXXXX)
as_server=()
if [ "$(id -u)" -eq 0 ]; then chown postgres: "$folder"; as_server=(runuser -u postgres --); fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
stop() { "${as_server[@]}" "$bin/pg_ctl" -D "$folder/data" -m immediate -w stop >/dev/null 2>&1 || true; rm -rf "$folder"; }
trap stop EXIT
"${as_server[@]}" "$bin/initdb" -D "$folder/data" -U clubhouse_admin --auth-local=trust -E UTF8 --locale=C --no-sync >/dev/null 2>&1
"${as_server[@]}" "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -o "-p $port -k $folder -c listen_addresses='' $settings" start >/dev/null
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}'), $(nproc) cores; $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
