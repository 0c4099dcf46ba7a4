#!/usr/bin/env bash
# Server search under concurrency with the committed query corpus (issue 18): every query of
# Benchmarks/queries/corpus.txt (first page of 50, with totals) over the server benchmark's data
# (100,000 instances in 10 modules), sent in turn by CONNECTIONS (default 32) wrk connections for
# DURATION. Prints requests/s, p50/p99 and the server's CPU per request (user+sys of the server
# process over the run, divided by the requests answered), next to one connection for the floor
# of a single query at a time. Target: ≤ 6 ms of server CPU per request, p99 ≤ 300 ms.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Benchmarks/lib/halo-server.sh
bench_setup search-load
source Benchmarks/lib/search-corpus.sh

"$BIN" seed --instances "$INSTANCES" --modules "$MODULES" --seed 1 --data "$WORK/data" > /dev/null
start_server "$WORK/data"
TOKEN=$(app_token "$WORK/data")
# shellcheck disable=SC2046
corpus_bodies $(sqlite3 "$WORK/data/halo.sqlite" "SELECT id FROM server_module ORDER BY name")
corpus_check "$BASE" "$TOKEN"
read -r RPS1 P50_1 P99_1 CPU1 <<< "$(corpus_load "$BASE" "$TOKEN" 1 "$SERVER_PID")"
read -r RPS P50 P99 CPU <<< "$(corpus_load "$BASE" "$TOKEN" "$CONNECTIONS" "$SERVER_PID")"
echo "search with the query corpus ($(wc -l < "$WORK/bodies.txt") queries in turn, $INSTANCES instances in $MODULES modules, $DURATION each):"
echo "   1 connection: ${RPS1} requests/s, p50 ${P50_1}, p99 ${P99_1}, server CPU ${CPU1} ms per request"
echo "   $CONNECTIONS connections: ${RPS} requests/s, p50 ${P50}, p99 ${P99}, server CPU ${CPU} ms per request" \
  "(targets: <= 6 ms of server CPU per request, p99 <= 300 ms)"
