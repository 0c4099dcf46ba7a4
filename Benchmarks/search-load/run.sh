#!/usr/bin/env bash
# Server search under concurrency with the committed query corpus (issue 18): every query of
# Benchmarks/queries/corpus.txt (first page of 50, with totals) over the server benchmark's data
# (100,000 instances in 10 modules), sent in turn by CONNECTIONS (default 32) wrk connections for
# DURATION. Prints requests/s, p50/p99 and the server's CPU per request (user+sys of the server
# process over the run, divided by the requests answered), next to one connection for the floor
# of a single query at a time. Target: ≤ 6 ms of server CPU per request, p99 ≤ 300 ms.
set -euo pipefail
cd "$(dirname "$0")/../.."
INSTANCES=${INSTANCES:-100000}
MODULES=${MODULES:-10}
CONNECTIONS=${CONNECTIONS:-32}
DURATION=${DURATION:-15s}
source Benchmarks/lib/halo-server.sh
bench_setup search-load
bash scripts/swift-release.sh --product halo 2>&1 | { grep -E "error|warning: .*\.swift" || true; }
HALO="$(bash scripts/swift-release.sh --show-bin-path)/halo"
cpu_of() { awk '{print ($14 + $15) / 100}' "/proc/$1/stat"; }

"$BIN" seed --instances "$INSTANCES" --modules "$MODULES" --seed 1 --data "$WORK/data" > /dev/null
start_server "$WORK/data"
TOKEN=$(app_token "$WORK/data")
MODULE_IDS=$(sqlite3 "$WORK/data/halo.sqlite" "SELECT id FROM server_module ORDER BY name")

# The corpus as request bodies, one compact JSON per line, through `halo search --print-request`
# (the same filter language and request builder the app and the SDK use).
python3 - "$HALO" "$WORK/bodies.txt" $MODULE_IDS <<'PY'
import json, subprocess, sys
halo, out, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
queries, current = [], None
for line in open("Benchmarks/queries/corpus.txt"):
    line = line.rstrip("\n")
    if line.startswith("## "):
        current = {"name": line[3:]}
        queries.append(current)
    elif current is not None and ":" in line and not line.startswith("#"):
        key, value = line.split(":", 1)
        current[key.strip()] = value.strip()
with open(out, "w") as bodies:
    for query in queries:
        arguments = [halo, "search", "--print-request", "--page", "1", "--limit", "50"]
        for module in modules:
            arguments += ["--module-id", module]
        for key in ("filter", "meta", "sort"):
            if key in query:
                arguments += ["--" + key, query[key]]
        body = json.loads(subprocess.run(arguments, check=True, capture_output=True, text=True).stdout)
        bodies.write(json.dumps(body, separators=(",", ":")) + "\n")
print(f"   {len(queries)} corpus queries", file=sys.stderr)
PY
while read -r body; do
  status=$(curl -s -o /dev/null -w "%{http_code}" -X POST "$BASE/api/generalcontent/instance/search" \
    -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d "$body")
  [ "$status" = 200 ] || { echo "a corpus query answered $status: $body"; exit 1; }
done < "$WORK/bodies.txt"

cat > "$WORK/corpus.lua" <<LUA
local bodies = {}
for line in io.lines("$WORK/bodies.txt") do bodies[#bodies + 1] = line end
local next = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $TOKEN"
request = function()
  next = next % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[next])
end
LUA
load() {  # load CONNECTIONS: prints "requests/s p50 p99 cpu-ms-per-request"
  local cpu0 cpu1 requests
  cpu0=$(cpu_of "$SERVER_PID")
  wrk -t"$(( $1 < 2 ? 1 : 2 ))" -c"$1" -d"$DURATION" --latency -s "$WORK/corpus.lua" "$BASE/api/generalcontent/instance/search" > "$WORK/wrk.txt"
  cpu1=$(cpu_of "$SERVER_PID")
  if grep -q "Non-2xx" "$WORK/wrk.txt"; then grep "Non-2xx" "$WORK/wrk.txt"; exit 1; fi
  requests=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
  echo "$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk.txt") $(awk '$1=="50%" {print $2}' "$WORK/wrk.txt")" \
    "$(awk '$1=="99%" {print $2}' "$WORK/wrk.txt") $(awk -v a="$cpu0" -v b="$cpu1" -v n="$requests" 'BEGIN{printf "%.2f", (b-a)*1000/n}')"
}
read -r RPS1 P50_1 P99_1 CPU1 <<< "$(load 1)"
read -r RPS P50 P99 CPU <<< "$(load "$CONNECTIONS")"
echo "search with the query corpus ($(wc -l < "$WORK/bodies.txt") queries in turn, $INSTANCES instances in $MODULES modules, $DURATION each):"
echo "   1 connection: ${RPS1} requests/s, p50 ${P50_1}, p99 ${P99_1}, server CPU ${CPU1} ms per request"
echo "   $CONNECTIONS connections: ${RPS} requests/s, p50 ${P50}, p99 ${P99}, server CPU ${CPU} ms per request" \
  "(targets: <= 6 ms of server CPU per request, p99 <= 300 ms)"
