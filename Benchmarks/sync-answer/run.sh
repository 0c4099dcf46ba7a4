#!/usr/bin/env bash
# The server's full-sync answer of one 100,000-instance module (issue 18), against its floor in
# the same run: sqlite3 selecting the same rows' stored JSON (metadata, values and tags text) to a
# file. RUNS (default 3) alternated runs of each; medians compared, wall time and CPU (the
# server's user+sys for ours, sqlite3's for the floor; curl's reading is in neither).
# Targets: ≤ 2× the floor and ≤ 2 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
INSTANCES=${INSTANCES:-100000}
RUNS=${RUNS:-3}
source Benchmarks/lib/halo-server.sh
bench_setup sync-answer
cpu_of() { awk '{print ($14 + $15) / 100}' "/proc/$1/stat"; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

DATA="$WORK/server"
"$BIN" seed --data "$DATA" --instances "$INSTANCES" --modules 1 --seed 2 > /dev/null
MODULE=$(sqlite3 "$DATA/halo.sqlite" "SELECT id FROM server_module LIMIT 1")
start_server "$DATA"
TOKEN=$(app_token "$DATA")

FLOOR_SQL="SELECT i.id, i.module, i.name, b.values_json, b.tags_json, i.created_at, i.updated_at, i.published_at,
  i.removed_at, i.archived_at, i.deleted_at, i.created_by, i.updated_by, i.deleted_by, i.customer_id, i.revision
  FROM content_instance i JOIN content_body b ON b.pk = i.pk WHERE i.module = '$MODULE' AND i.deleted_at IS NULL ORDER BY i.pk;"
OURS=(); OURS_CPU=(); FLOORS=(); FLOORS_CPU=()
for run in $(seq "$RUNS"); do
  cpu0=$(cpu_of "$SERVER_PID"); t0=$(ms)
  curl -s -X POST "$BASE/api/generalcontent/instance/sync" -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/json' -d "{\"moduleId\":\"$MODULE\"}" -o "$WORK/sync.json"
  OURS+=($(( $(ms) - t0 ))); OURS_CPU+=("$(awk -v a="$(cpu_of "$SERVER_PID")" -v b="$cpu0" 'BEGIN{printf "%.2f", a-b}')")
  t0=$(ms)
  cpu=$( { /usr/bin/time -f "%U %S" sqlite3 -readonly "$DATA/halo.sqlite" ".output $WORK/floor.txt" "$FLOOR_SQL" > /dev/null; } 2>&1 |
    tail -1 | awk '{printf "%.2f", $1+$2}')
  FLOORS+=($(( $(ms) - t0 ))); FLOORS_CPU+=("$cpu")
  echo "   run $run: sync answer ${OURS[-1]} ms (server CPU ${OURS_CPU[-1]} s); floor ${FLOORS[-1]} ms (${FLOORS_CPU[-1]} s CPU)"
done
COUNT=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["created"]))' "$WORK/sync.json")
[ "$COUNT" -eq "$INSTANCES" ] || { echo "the answer holds $COUNT instances, not $INSTANCES"; exit 1; }
O=$(printf '%s\n' "${OURS[@]}" | median); OC=$(printf '%s\n' "${OURS_CPU[@]}" | median)
F=$(printf '%s\n' "${FLOORS[@]}" | median); FC=$(printf '%s\n' "${FLOORS_CPU[@]}" | median)
echo "full sync answer of $INSTANCES instances ($(( $(stat -c %s "$WORK/sync.json") / 1000000 )) MB), medians of $RUNS alternated runs:" \
  "${O} ms, server CPU ${OC} s; floor (sqlite3 selecting the stored JSON to a file) ${F} ms, ${FC} s CPU;" \
  "ratio $(awk -v a="$O" -v b="$F" 'BEGIN{printf "%.2f", a/b}')x wall, $(awk -v a="$OC" -v b="$FC" 'BEGIN{printf "%.2f", a/b}')x CPU" \
  "(targets: <= 2x the floor and <= 2000 ms)"
