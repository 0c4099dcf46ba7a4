#!/usr/bin/env bash
# halo-server on PostgreSQL (issue 19), on the server benchmark's data (INSTANCES instances in
# MODULES modules, the same seed on both databases) and the committed query corpus
# (Benchmarks/queries/corpus.txt, first page of 50 with totals, queries in turn):
#   1. one process, one client (each request timed by itself: corpus_sequential): search p50 on
#      PostgreSQL next to SQLite without in-memory copies (target: <= 1.5x);
#   2. CONNECTIONS connections: one process on PostgreSQL next to three behind nginx
#      (scripts/serve-cluster.sh), requests/s and p99 (target: three >= 0.8x one on 2 cores).
# CPU per request is the server processes' and PostgreSQL's (user+sys over the run).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Benchmarks/lib/halo-server.sh
bench_setup postgres
source Benchmarks/lib/search-corpus.sh
source Benchmarks/lib/postgres.sh
CLUSTER_PID=""
bench_stop_more() {
  if [ -n "$CLUSTER_PID" ]; then kill -TERM "$CLUSTER_PID" 2>/dev/null || true; wait "$CLUSTER_PID" 2>/dev/null || true; fi
  stop_postgres
}
start_postgres

# corpus_load's figures (corpus_sequential's for one connection), then PostgreSQL's CPU per
# request over the same run.
load_with_postgres() {
  local before after figures
  before=$(pg_cpu)
  if [ "$3" = 1 ]; then figures=$(corpus_sequential "$1" "$2" "${@:4}"); else figures=$(corpus_load "$@"); fi
  after=$(pg_cpu)
  echo "$figures $(awk -v a="$before" -v b="$after" -v r="${figures%% *}" -v d="${DURATION%s}" 'BEGIN{printf "%.2f", (b-a)*1000/(r*d)}')"
}

seconds() { python3 -c 'import time; print(time.monotonic())'; }
t0=$(seconds)
"$BIN" seed --instances "$INSTANCES" --modules "$MODULES" --seed 1 --data "$WORK/data" > /dev/null
t1=$(seconds)
"$BIN" seed --instances "$INSTANCES" --modules "$MODULES" --seed 1 --database "$PG_ADDRESS" > /dev/null
t2=$(seconds)
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN{printf "   seeding: SQLite %.1f s, PostgreSQL %.1f s\n", b-a, c-b}'

# 1. One process each, one connection. SQLite without its in-memory copies (`SearchMemory`, which
# PostgreSQL has none of): the two databases' own search work, side by side.
start_server "$WORK/data" --limit search-memory-bytes=0
TOKEN=$(app_token "$WORK/data")
# shellcheck disable=SC2046
corpus_bodies $(sqlite3 "$WORK/data/halo.sqlite" "SELECT id FROM server_module ORDER BY name")
corpus_check "$BASE" "$TOKEN"
read -r S_RPS S_P50 S_P99 S_CPU <<< "$(corpus_sequential "$BASE" "$TOKEN" "$SERVER_PID")"
stop_server

start_server "$WORK/pg-process" --database "$PG_ADDRESS"
TOKEN=$(app_token "$PG_ADDRESS")
# shellcheck disable=SC2046
corpus_bodies $(pg_sql "SELECT id FROM server_module ORDER BY name")
corpus_check "$BASE" "$TOKEN"
read -r P_RPS P_P50 P_P99 P_CPU P_PGCPU <<< "$(load_with_postgres "$BASE" "$TOKEN" 1 "$SERVER_PID")"

# 2. CONNECTIONS connections: one process, then three behind nginx.
read -r O_RPS O_P50 O_P99 O_CPU O_PGCPU <<< "$(load_with_postgres "$BASE" "$TOKEN" "$CONNECTIONS" "$SERVER_PID")"
stop_server

CLUSTER_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
scripts/serve-cluster.sh --database "$PG_ADDRESS" --port "$CLUSTER_PORT" --binary "$BIN" > "$WORK/cluster.log" 2>&1 &
CLUSTER_PID=$!
for _ in $(seq 1 300); do grep -q "cluster ready" "$WORK/cluster.log" && break; sleep 0.1; done
grep -q "cluster ready" "$WORK/cluster.log" || { echo "the cluster did not start:"; cat "$WORK/cluster.log"; exit 1; }
PROCESS_PIDS=$(sed -n 's/.*processes:\(.*\))/\1/p' "$WORK/cluster.log" | tr ' ' '\n' | cut -d: -f1 | tr '\n' ' ')
CLUSTER_BASE="http://127.0.0.1:$CLUSTER_PORT"
corpus_check "$CLUSTER_BASE" "$TOKEN"
# shellcheck disable=SC2086
read -r C_RPS C_P50 C_P99 C_CPU C_PGCPU <<< "$(load_with_postgres "$CLUSTER_BASE" "$TOKEN" "$CONNECTIONS" $PROCESS_PIDS)"

echo "search with the query corpus on PostgreSQL ($(wc -l < "$WORK/bodies.txt") queries in turn, $INSTANCES instances in $MODULES modules, $DURATION each):"
echo "   1 connection, SQLite:      ${S_RPS} requests/s, p50 ${S_P50}, p99 ${S_P99}, server CPU ${S_CPU} ms per request"
echo "   1 connection, PostgreSQL:  ${P_RPS} requests/s, p50 ${P_P50}, p99 ${P_P99}, server CPU ${P_CPU} + PostgreSQL ${P_PGCPU} ms per request"
python3 - "$S_P50" "$P_P50" <<'PY'
import re, sys
def ms(text):
    value, unit = re.match(r"([\d.]+)(\w+)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
print(f"   PostgreSQL p50 / SQLite p50: {ms(sys.argv[2]) / ms(sys.argv[1]):.2f}x (target: <= 1.5x)")
PY
echo "   $CONNECTIONS connections, one process:     ${O_RPS} requests/s, p50 ${O_P50}, p99 ${O_P99}, server CPU ${O_CPU} + PostgreSQL ${O_PGCPU} ms per request"
echo "   $CONNECTIONS connections, three + nginx:   ${C_RPS} requests/s, p50 ${C_P50}, p99 ${C_P99}, server CPU ${C_CPU} + PostgreSQL ${C_PGCPU} ms per request"
awk -v c="$C_RPS" -v o="$O_RPS" 'BEGIN{printf "   three processes / one process: %.2fx requests/s (target: >= 0.8x on this machine)\n", c/o}'
