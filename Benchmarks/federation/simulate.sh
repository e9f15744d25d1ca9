#!/usr/bin/env bash
# The association simulation (issue 34): 200 clubs, 100,000 golfers, 2,000,000 rounds pushed through the
# real path into a PostgreSQL cluster of its own (cluster.sh) and every Handicap Index of record computed
# there (Benchmarks/Sources/clubhouse-bench/FederationSimulation.swift). Release build.
# Usage: Benchmarks/federation/simulate.sh [--clubs C] [--golfers G] [--rounds R] [--batch B]
set -euo pipefail
cd "$(dirname "$0")/../.."
settings="-c shared_buffers=512MB -c max_wal_size=4GB -c work_mem=64MB"
source Benchmarks/federation/cluster.sh
.build/release/clubhouse-bench federation-sim --admin "postgresql://clubhouse_admin@/postgres?host=$folder&port=$port" \
  --site "postgresql://ROLE@/postgres?host=$folder&port=$port" "$@"
