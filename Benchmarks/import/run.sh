#!/usr/bin/env bash
# Import of INSTANCES (default 100,000) instances from HALO batch JSON into an empty module of a
# release halo-server (`halo import`: rows checked and staged in chunks, then committed at once),
# against its floor in the same run: sqlite3 loading the same file with json_each into the same
# content tables and indexes the server uses (instances, bodies, fields, the value index of every
# scalar; the floor skips lists, objects and the trigram index, so it is a little cheaper than the
# real work). Issue 17's target: ≤ 2× the floor. Prints wall and CPU time of each; ours counts
# the client's and the server's CPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
INSTANCES=${INSTANCES:-100000}
for product in halo-server halo; do
  bash scripts/swift-release.sh --product "$product" 2>&1 | { grep -E "error|warning: .*\.swift" || true; }
done
BIN=$(bash scripts/swift-release.sh --show-bin-path)
WORK=$(mktemp -d /tmp/halo-import-bench.XXXXXX)
SERVER_PID=""
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
cpu_of() { awk '{print ($14 + $15) / 100}' "/proc/$1/stat"; }

serve() {  # serve DIR: SERVER_PID, URL, AUTH (an editor client)
  "$BIN/halo-server" client add --data "$1" --editor > "$WORK/client.txt"
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$BIN/halo-server" serve --data "$1" --port "$port" --quiet > "$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  URL="http://127.0.0.1:$port"
  for _ in $(seq 100); do curl -s -o /dev/null "$URL/api/authentication/version" && break; sleep 0.1; done
  AUTH=(--server "$URL" --client-id "$(awk -F': *' '/client id/{print $2}' "$WORK/client.txt")"
    --client-secret "$(awk -F': *' '/client secret/{print $2}' "$WORK/client.txt")")
}

# The file: an export of a seeded module.
"$BIN/halo-server" seed --data "$WORK/source" --instances "$INSTANCES" --modules 1 --seed 7 > /dev/null
serve "$WORK/source"
XDG_CACHE_HOME=$WORK/xdg XDG_DATA_HOME=$WORK/xdg XDG_CONFIG_HOME=$WORK/xdg \
  "$BIN/halo" export "Bench 1" --output "$WORK/bench.json" "${AUTH[@]}"
kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""
echo "== $INSTANCES instances, $(( $(stat -c %s "$WORK/bench.json") / 1000000 )) MB of JSON"

# Ours: the same module, empty, on a fresh server.
"$BIN/halo-server" seed --data "$WORK/target" --instances 0 --modules 1 --seed 7 > /dev/null
sqlite3 "$WORK/target/halo.sqlite" ".backup '$WORK/floor.sqlite'"  # the floor's tables and indexes, empty (WAL included)
serve "$WORK/target"
SERVER_CPU0=$(cpu_of "$SERVER_PID")
T0=$(date +%s%N)
CLIENT_CPU=$( { /usr/bin/time -f "%U %S" env XDG_CACHE_HOME=$WORK/xdg XDG_DATA_HOME=$WORK/xdg XDG_CONFIG_HOME=$WORK/xdg \
  "$BIN/halo" import "Bench 1" "$WORK/bench.json" "${AUTH[@]}" > "$WORK/import.txt"; } 2>&1 | tail -1 | awk '{printf "%.2f", $1+$2}')
OURS_MS=$(( ($(date +%s%N) - T0) / 1000000 ))
SERVER_CPU=$(awk -v a="$(cpu_of "$SERVER_PID")" -v b="$SERVER_CPU0" 'BEGIN{printf "%.2f", a-b}')
echo "   halo import: $(cat "$WORK/import.txt") in ${OURS_MS} ms; CPU ${CLIENT_CPU} s client + ${SERVER_CPU} s server"
MODULE=$(sqlite3 "$WORK/floor.sqlite" "SELECT id FROM server_module LIMIT 1")

# Floor: sqlite3 and json_each into the same tables.
FILE="$WORK/bench.json"
T0=$(date +%s%N)
FLOOR_CPU=$( { /usr/bin/time -f "%U %S" sqlite3 "$WORK/floor.sqlite" "
  BEGIN;
  INSERT INTO content_instance (id, module, name, name_folded, created_at, updated_at, published_at, removed_at, archived_at,
      created_by, customer_id, revision)
    SELECT json_extract(value,'\$.id'), '$MODULE', json_extract(value,'\$.name'), lower(json_extract(value,'\$.name')),
      json_extract(value,'\$.createdAt'), json_extract(value,'\$.updatedAt'), json_extract(value,'\$.publishedAt'),
      json_extract(value,'\$.removedAt'), json_extract(value,'\$.archivedAt'), 'Import', 1, 0
    FROM json_each(readfile('$FILE'), '\$.createdOrUpdated');
  INSERT INTO content_body (pk, values_json, tags_json)
    SELECT i.pk, json_extract(e.value,'\$.values'), coalesce(json_extract(e.value,'\$.tags'), '[]')
    FROM json_each(readfile('$FILE'), '\$.createdOrUpdated') e JOIN content_instance i ON i.id = json_extract(e.value,'\$.id');
  INSERT OR IGNORE INTO content_field (module, name)
    SELECT DISTINCT '$MODULE', v.key FROM content_body b, json_each(b.values_json) v;
  INSERT INTO content_value (instance, field, ord, kind, num, str, folded)
    SELECT b.pk, f.field, 0,
      CASE v.type WHEN 'null' THEN 0 WHEN 'true' THEN 1 WHEN 'false' THEN 1 WHEN 'integer' THEN 2 WHEN 'real' THEN 2 ELSE 3 END,
      CASE v.type WHEN 'integer' THEN v.value WHEN 'real' THEN v.value WHEN 'true' THEN 1 WHEN 'false' THEN 0 END,
      CASE v.type WHEN 'text' THEN v.value END,
      CASE WHEN v.type = 'text' AND lower(v.value) != v.value THEN lower(v.value) END
    FROM content_body b, json_each(b.values_json) v JOIN content_field f ON f.module = '$MODULE' AND f.name = v.key
    WHERE v.type NOT IN ('object', 'array');
  COMMIT;" > /dev/null; } 2>&1 | tail -1 | awk '{printf "%.2f", $1+$2}')
FLOOR_MS=$(( ($(date +%s%N) - T0) / 1000000 ))
echo "   floor (sqlite3 json_each into the same tables): ${FLOOR_MS} ms, ${FLOOR_CPU} s CPU;" \
  "$(sqlite3 "$WORK/floor.sqlite" "SELECT count(*) FROM content_instance") instances"
echo "   import = $(awk -v a="$OURS_MS" -v b="$FLOOR_MS" 'BEGIN{printf "%.2f", a/b}')x the floor's wall time," \
  "$(awk -v a="$CLIENT_CPU" -v s="$SERVER_CPU" -v b="$FLOOR_CPU" 'BEGIN{printf "%.2f", (a+s)/b}')x its CPU (target ≤ 2x)"
