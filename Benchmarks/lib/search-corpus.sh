# The committed query corpus as load, shared by the search benchmarks. Source it after
# halo-server.sh (needs WORK):
#
#   corpus_bodies MODULE_ID…        # WORK/bodies.txt: one search request body per corpus query
#   corpus_check BASE TOKEN         # every body answers 200
#   corpus_load BASE TOKEN N PID…   # "requests/s p50 p99 cpu-ms-per-request" for N wrk connections;
#                                   # CPU is user+sys of the PIDs (the server processes) over the run
#   corpus_sequential BASE TOKEN PID…  # the same for one client, each request timed by itself

# The data and load both search benchmarks use (override any from the environment).
: "${INSTANCES:=100000}" "${MODULES:=10}" "${CONNECTIONS:=32}" "${DURATION:=15s}"

cpu_of() { awk '{print ($14 + $15) / 100}' "/proc/$1/stat"; }

# The corpus (Benchmarks/queries/corpus.txt) as request bodies, one compact JSON per line, through
# `halo search --print-request` (the filter language and request builder of the app and the SDK),
# first page of 50 with totals.
corpus_bodies() {
  bash scripts/swift-release.sh --product halo 2>&1 | { grep -E "error|warning: .*\.swift" || true; }
  local halo
  halo="$(bash scripts/swift-release.sh --show-bin-path)/halo"
  python3 - "$halo" "$WORK/bodies.txt" "$@" <<'PY'
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
}

corpus_check() {
  local status
  while read -r body; do
    status=$(curl -s -o /dev/null -w "%{http_code}" -X POST "$1/api/generalcontent/instance/search" \
      -H "Authorization: Bearer $2" -H 'Content-Type: application/json' -d "$body")
    [ "$status" = 200 ] || { echo "a corpus query answered $status: $body"; exit 1; }
  done < "$WORK/bodies.txt"
}

corpus_load() {
  local base=$1 token=$2 connections=$3
  shift 3
  cat > "$WORK/corpus.lua" <<LUA
local bodies = {}
for line in io.lines("$WORK/bodies.txt") do bodies[#bodies + 1] = line end
local next = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $token"
request = function()
  next = next % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[next])
end
LUA
  local cpu0=0 cpu1=0 pid requests
  for pid in "$@"; do cpu0=$(awk -v a="$cpu0" -v b="$(cpu_of "$pid")" 'BEGIN{print a+b}'); done
  wrk -t"$(( connections < 2 ? 1 : 2 ))" -c"$connections" -d"$DURATION" --latency -s "$WORK/corpus.lua" \
    "$base/api/generalcontent/instance/search" > "$WORK/wrk.txt"
  for pid in "$@"; do cpu1=$(awk -v a="$cpu1" -v b="$(cpu_of "$pid")" 'BEGIN{print a+b}'); done
  if grep -q "Non-2xx" "$WORK/wrk.txt"; then grep "Non-2xx" "$WORK/wrk.txt"; exit 1; fi
  requests=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
  echo "$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk.txt") $(awk '$1=="50%" {print $2}' "$WORK/wrk.txt")" \
    "$(awk '$1=="99%" {print $2}' "$WORK/wrk.txt") $(awk -v a="$cpu0" -v b="$cpu1" -v n="$requests" 'BEGIN{printf "%.2f", (b-a)*1000/n}')"
}

# One client sending the corpus request after request on one kept-alive connection for DURATION,
# each request timed by itself. wrk's percentiles include its coordinated-omission correction:
# it adds the requests a fixed-rate client would have sent while a slow one ran, so in a corpus
# where one search takes 250 ms and most 5–30 ms the slow one counts several times over and the
# p50 lands far from any request's (at one connection wrk's mean latency exceeded the time
# between its own requests). Same output as corpus_load.
corpus_sequential() {
  local base=$1 token=$2 cpu0=0 cpu1=0 pid figures
  shift 2
  for pid in "$@"; do cpu0=$(awk -v a="$cpu0" -v b="$(cpu_of "$pid")" 'BEGIN{print a+b}'); done
  figures=$(python3 - "$base" "$token" "$WORK/bodies.txt" "${DURATION%s}" <<'PY'
import http.client, sys, time, urllib.parse
base, token, bodies, duration = sys.argv[1], sys.argv[2], [l.strip() for l in open(sys.argv[3])], float(sys.argv[4])
url = urllib.parse.urlsplit(base)
connection = http.client.HTTPConnection(url.hostname, url.port)
headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
latencies, start, index = [], time.monotonic(), 0
while time.monotonic() - start < duration:
    sent = time.monotonic()
    connection.request("POST", "/api/generalcontent/instance/search", bodies[index % len(bodies)], headers)
    response = connection.getresponse()
    response.read()
    if response.status != 200: sys.exit(f"a corpus query answered {response.status}")
    latencies.append((time.monotonic() - sent) * 1000)
    index += 1
elapsed = time.monotonic() - start
latencies.sort()
rank = lambda p: latencies[min(len(latencies) - 1, int(p * len(latencies)))]
print(f"{len(latencies) / elapsed:.2f} {rank(0.5):.2f}ms {rank(0.99):.2f}ms {len(latencies)}")
PY
)
  for pid in "$@"; do cpu1=$(awk -v a="$cpu1" -v b="$(cpu_of "$pid")" 'BEGIN{print a+b}'); done
  read -r rps p50 p99 requests <<< "$figures"
  echo "$rps $p50 $p99 $(awk -v a="$cpu0" -v b="$cpu1" -v n="$requests" 'BEGIN{printf "%.2f", (b-a)*1000/n}')"
}
