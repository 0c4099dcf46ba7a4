#!/usr/bin/env bash
# HaloServer benchmark: search latency under load vs a naive json_extract scan, and full-sync
# time / memory. Prints figures; takes a few minutes on 2 cores.
#
#   Benchmarks/server/run.sh            # from the package root
#   KEEP=1 Benchmarks/server/run.sh     # keep the data directories for inspection
set -euo pipefail
cd "$(dirname "$0")/../.."

INSTANCES=${INSTANCES:-100000}
MODULES=${MODULES:-10}
DURATION=${DURATION:-15s}
CONNECTIONS=${CONNECTIONS:-32}
BIG_SYNC=${BIG_SYNC:-100000}

source Benchmarks/lib/halo-server.sh
bench_setup server
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
hwm_kb() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }
token_for() { # DIR -> access token of a new editor client
  local creds id secret
  creds=$("$BIN" client add --editor --data "$1")
  id=$(echo "$creds" | awk '/client id/ {print $3}')
  secret=$(echo "$creds" | awk '/client secret/ {print $3}')
  curl -s -X POST "$BASE/api/oauth/token?_app" \
    --data-urlencode grant_type=client_credentials --data-urlencode "client_id=$id" --data-urlencode "client_secret=$secret" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])'
}

echo "== seeding $INSTANCES instances in $MODULES modules"
DATA="$WORK/data"
/usr/bin/time -f "   seed wall time: %e s, max RSS %M KB" "$BIN" seed --instances "$INSTANCES" --modules "$MODULES" --seed 1 --data "$DATA" | head -1
DB="$DATA/halo.sqlite"
echo "   database size: $(du -h "$DB" | cut -f1)"

start_server "$DATA"
TOKEN=$(token_for "$DATA")

# The nested 4-condition filter across all modules, page of 50 with totals.
BODY='{"searchValues":{"condition":"and","operands":[{"operation":">=","property":"price","value":10,"type":"number"},{"operation":"<=","property":"price","value":500,"type":"number"},{"condition":"or","operands":[{"operation":"=","property":"inStock","value":true,"type":"string"},{"operation":"like","property":"title","value":"abi","type":"string"}]}]},"pagination":{"page":1,"limit":50,"skip":false}}'
ANSWER=$(curl -s -X POST "$BASE/api/generalcontent/instance/search" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d "$BODY")
SERVER_TOTAL=$(echo "$ANSWER" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["pagination"]["totalItems"], len(d["items"]))')
echo "   server answer: totalItems, items = $SERVER_TOTAL"

cat > "$WORK/search.lua" <<LUA
wrk.method = "POST"
wrk.body = '$BODY'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $TOKEN"
LUA
echo "== wrk: $CONNECTIONS connections, $DURATION"
wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency -s "$WORK/search.lua" "$BASE/api/generalcontent/instance/search" > "$WORK/wrk.txt"
grep -E "Latency|50%|90%|99%|Requests/sec|Non-2xx|Socket errors" "$WORK/wrk.txt" | sed 's/^/   /'
P50=$(awk '$1=="50%" {print $2}' "$WORK/wrk.txt")
P99=$(awk '$1=="99%" {print $2}' "$WORK/wrk.txt")

# One request at a time (no queueing): the latency of the search itself.
python3 - "$BASE" "$TOKEN" "$BODY" > "$WORK/serial.txt" <<'PY'
import sys, time, urllib.request, statistics
base, token, body = sys.argv[1], sys.argv[2], sys.argv[3].encode()
times = []
for _ in range(60):
    request = urllib.request.Request(base + "/api/generalcontent/instance/search", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + token})
    start = time.perf_counter(); urllib.request.urlopen(request).read(); times.append((time.perf_counter() - start) * 1000)
times.sort()
# The server's own share: the same round trip for a search that matches nothing by id.
trivial = []
for _ in range(60):
    request = urllib.request.Request(base + "/api/generalcontent/instance/search", data=b'{"instanceIds":["none"]}', method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + token})
    start = time.perf_counter(); urllib.request.urlopen(request).read(); trivial.append((time.perf_counter() - start) * 1000)
print(f"{statistics.median(times):.2f} {times[int(len(times) * 0.99) - 1]:.2f} {statistics.median(trivial):.2f}")
PY
read SERIAL_P50 SERIAL_P99 TRIVIAL_P50 < "$WORK/serial.txt"
echo "   one client, 60 requests: p50 ${SERIAL_P50} ms, p99 ${SERIAL_P99} ms (HTTP + auth + routing alone: ${TRIVIAL_P50} ms)"

echo "== naive json_extract full scan in sqlite3 (same DB, same predicate, page of 50 + total)"
NAIVE_SQL="WITH m AS (SELECT i.id, i.created_at FROM content_instance i JOIN content_body b ON b.pk = i.pk
  WHERE i.deleted_at IS NULL
    AND json_extract(b.values_json, '\$.price') >= 10 AND json_extract(b.values_json, '\$.price') <= 500
    AND (json_extract(b.values_json, '\$.inStock') = 1 OR lower(json_extract(b.values_json, '\$.title')) LIKE '%abi%'))
SELECT (SELECT count(*) FROM m) AS total, id FROM m ORDER BY created_at DESC, id LIMIT 50;"
NAIVE_TIMES=()
for _ in 1 2 3 4 5; do
  START=$(date +%s%N)
  NAIVE_TOTAL=$(sqlite3 -readonly "$DB" "$NAIVE_SQL" | head -1 | cut -d'|' -f1)
  NAIVE_TIMES+=($(( ($(date +%s%N) - START) / 1000 )))
done
NAIVE_MS=$(printf '%s\n' "${NAIVE_TIMES[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}')
echo "   naive total: $NAIVE_TOTAL (server said ${SERVER_TOTAL% *}); median of 5 runs: ${NAIVE_MS} ms"
python3 - "$P50" "$SERIAL_P50" "$NAIVE_MS" <<'PY'
import sys
def ms(text):
    for unit, factor in (("us", 0.001), ("ms", 1.0), ("s", 1000.0)):
        if text.endswith(unit): return float(text[:-len(unit)]) * factor
    return float(text)
wrk_p50, serial_p50, naive = ms(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print(f"   ratio naive / server p50: {naive / serial_p50:.1f}x (one client), {naive / wrk_p50:.1f}x (under wrk load)")
PY

# measure_sync NAME BODY [TARGET]: one full sync against the running server: time, size, RSS growth.
measure_sync() {
  local name=$1 body=$2 target=${3:-}
  local before after count
  before=$(rss_kb "$SERVER_PID")
  /usr/bin/time -f "%e" -o "$WORK/$name.time" curl -s -X POST "$BASE/api/generalcontent/instance/sync" \
    -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d "$body" -o "$WORK/$name.json"
  after=$(hwm_kb "$SERVER_PID")
  count=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["created"]))' "$WORK/$name.json")
  echo "   created: $count instances, $(du -h "$WORK/$name.json" | cut -f1) in $(cat "$WORK/$name.time") s"
  echo "   server RSS before ${before} KB, peak after ${after} KB: growth $(( (after - before) / 1024 )) MB${target:+ ($target)}"
}

echo "== full sync of one $((INSTANCES / MODULES))-instance module"
MODULE=$(curl -s "$BASE/api/generalcontent/module?skip=true" -H "Authorization: Bearer $TOKEN" |
  python3 -c 'import json,sys; print([m["id"] for m in json.load(sys.stdin) if m["name"] == "Bench 1"][0])')
measure_sync sync "{\"moduleId\":\"$MODULE\"}" "target < 200 MB"
stop_server

if [ "$BIG_SYNC" -gt 0 ]; then
  echo "== full sync of one $BIG_SYNC-instance module"
  BIG="$WORK/big"
  "$BIN" seed --instances "$BIG_SYNC" --modules 1 --seed 2 --data "$BIG" | head -1 | sed 's/^/   /'
  start_server "$BIG"
  TOKEN=$(token_for "$BIG")
  measure_sync big '{"moduleName":"Bench 1"}'
  stop_server
fi
