#!/usr/bin/env bash
# Server search under concurrency with the committed query corpus (issue 18): every query of
# Benchmarks/queries/corpus.txt (first page of 50, with totals) over the server benchmark's data
# (100,000 instances in 10 modules), sent in turn by CONNECTIONS (default 32) wrk connections for
# DURATION. Prints requests/s, p50/p99 and the server's CPU per request (user+sys of the server
# process over the run, divided by the requests answered), next to one connection for the floor
# of a single query at a time. Target: ≤ 6 ms of server CPU per request, p99 ≤ 300 ms.
#
# The server keeps in-memory copies of what searches read (`SearchMemory`, made the second time a
# search of one generation of the data needs them, so the runs include making them). The same
# load is run again on a server without them (`--limit search-memory-bytes=0`: SQLite only, as a
# server that writes between most searches reads), and once more with copies while an editor
# saves an instance every WRITE_EVERY seconds (default 1), each save making every copy stale.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Benchmarks/lib/halo-server.sh
bench_setup search-load
source Benchmarks/lib/search-corpus.sh

"$BIN" seed --instances "$INSTANCES" --modules "$MODULES" --seed 1 --data "$WORK/data" > /dev/null
start_server "$WORK/data"
TOKEN=$(app_token "$WORK/data")
MODULE_IDS=$(sqlite3 "$WORK/data/halo.sqlite" "SELECT id FROM server_module ORDER BY name")
# shellcheck disable=SC2086
corpus_bodies $MODULE_IDS
corpus_check "$BASE" "$TOKEN"
rss() { awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
RSS0=$(rss "$SERVER_PID")
read -r RPS1 P50_1 P99_1 CPU1 <<< "$(corpus_load "$BASE" "$TOKEN" 1 "$SERVER_PID")"
read -r RPS P50 P99 CPU <<< "$(corpus_load "$BASE" "$TOKEN" "$CONNECTIONS" "$SERVER_PID")"
RSS1=$(rss "$SERVER_PID")

# With an editor saving meanwhile: every save is a new generation, so copies are made again.
EDITOR_TOKEN=$(app_token "$WORK/data" --editor)
FIRST_MODULE=$(head -1 <<< "$MODULE_IDS")
INSTANCE=$(curl -s -X POST "$BASE/api/generalcontent/instance/search" -H "Authorization: Bearer $TOKEN" \
  -H 'Content-Type: application/json' -d "{\"moduleIds\":[\"$FIRST_MODULE\"],\"pagination\":{\"limit\":1}}" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["id"])')
(
  n=0
  while true; do
    n=$((n + 1))
    curl -s -o /dev/null -X PUT "$BASE/api/generalcontent/instance/$INSTANCE" -H "Authorization: Bearer $EDITOR_TOKEN" \
      -H 'Content-Type: application/json' -d "{\"name\":\"Edited $n\"}"
    sleep "${WRITE_EVERY:-1}"
  done
) &
WRITER=$!
read -r RPSW P50W P99W CPUW <<< "$(corpus_load "$BASE" "$TOKEN" "$CONNECTIONS" "$SERVER_PID")"
kill "$WRITER"; wait "$WRITER" 2>/dev/null || true
stop_server

start_server "$WORK/data" --limit search-memory-bytes=0
read -r RPS0 P50_0 P99_0 CPU0 <<< "$(corpus_load "$BASE" "$TOKEN" "$CONNECTIONS" "$SERVER_PID")"
RSS_SQLITE=$(rss "$SERVER_PID")

echo "search with the query corpus ($(wc -l < "$WORK/bodies.txt") queries in turn, $INSTANCES instances in $MODULES modules, $DURATION each):"
echo "   1 connection: ${RPS1} requests/s, p50 ${P50_1}, p99 ${P99_1}, server CPU ${CPU1} ms per request"
echo "   $CONNECTIONS connections: ${RPS} requests/s, p50 ${P50}, p99 ${P99}, server CPU ${CPU} ms per request" \
  "(targets: <= 6 ms of server CPU per request, p99 <= 300 ms); server memory ${RSS0} -> ${RSS1} MB"
echo "   $CONNECTIONS connections, an instance saved every ${WRITE_EVERY:-1} s meanwhile: ${RPSW} requests/s, p50 ${P50W}," \
  "p99 ${P99W}, server CPU ${CPUW} ms per request"
echo "   $CONNECTIONS connections without in-memory copies (SQLite only): ${RPS0} requests/s, p50 ${P50_0}, p99 ${P99_0}," \
  "server CPU ${CPU0} ms per request, memory ${RSS_SQLITE} MB -> copies $(awk -v a="$CPU" -v b="$CPU0" 'BEGIN{printf "%.2f", a/b}')x the CPU," \
  "+$((RSS1 - RSS_SQLITE)) MB"
