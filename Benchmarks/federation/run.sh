#!/usr/bin/env bash
# Federation push benchmark (issue 34): `clubhouse federation push` beside the raw `psql COPY` of the
# same rows into the same leaf, in one run, against a PostgreSQL cluster of its own (cluster.sh; autovacuum
# off, so the server CPU of each variant is its own).
# Usage: Benchmarks/federation/run.sh [--records N] [--batch B] [--samples K]   (release build)
set -euo pipefail
cd "$(dirname "$0")/../.."
settings="-c autovacuum=off"
source Benchmarks/federation/cluster.sh
postmaster=$(head -1 "$folder/data/postmaster.pid")
.build/release/clubhouse-bench federation --postmaster "$postmaster" --admin "postgresql://clubhouse_admin@/postgres?host=$folder&port=$port" \
  --site "postgresql://clubhouse_site_bench@/postgres?host=$folder&port=$port" "$@"
