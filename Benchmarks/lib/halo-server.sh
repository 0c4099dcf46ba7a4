# Shared by the benchmarks that run halo-server on loopback. Source it from the package root:
#
#   source Benchmarks/lib/halo-server.sh
#   bench_setup events          # BIN (release unless BIN is set), WORK, and cleanup on exit
#   start_server "$DATA" --limit event-streams=100   # SERVER_PID, PORT, BASE
#   stop_server
#
# KEEP=1 keeps WORK (data directories, logs) for inspection.

# bench_setup NAME: builds the release halo-server unless BIN names one, makes WORK, and stops the
# server and removes WORK on exit.
bench_setup() {
  if [ -z "${BIN:-}" ]; then
    echo "== building release halo-server"
    bash scripts/swift-release.sh --product halo-server 2>&1 | { grep -E "error|warning: .*\.swift" || true; }
    BIN="$(bash scripts/swift-release.sh --show-bin-path)/halo-server"
  fi
  WORK=$(mktemp -d "/tmp/halo-$1-bench.XXXXXX")
  SERVER_PID=""
  trap bench_cleanup EXIT
}

bench_cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  # What else a benchmark started (a cluster, PostgreSQL) stops first.
  if declare -F bench_stop_more > /dev/null; then bench_stop_more; fi
  if [ -z "${KEEP:-}" ]; then rm -rf "$WORK"; else echo "data kept in $WORK"; fi
}

# start_server DIR [serve options…]: starts `serve --port 0` on DIR; sets SERVER_PID, PORT and BASE.
start_server() {
  local data=$1
  shift
  "$BIN" serve --port 0 --data "$data" --quiet "$@" 2> "$WORK/server.log" &
  SERVER_PID=$!
  PORT=""
  for _ in $(seq 1 100); do
    PORT=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$WORK/server.log" 2>/dev/null | grep -o '[0-9]*$' || true)
    [ -n "$PORT" ] && break
    sleep 0.1
  done
  [ -n "$PORT" ] || { echo "server did not start"; cat "$WORK/server.log"; exit 1; }
  BASE="http://127.0.0.1:$PORT"
}

stop_server() { kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""; }

# app_token DIR|ADDRESS [--editor]: the access token of a new app client of the data directory DIR
# or the PostgreSQL database ADDRESS (the server on BASE must be serving it).
app_token() {
  local creds location=$1
  shift
  case "$location" in
    postgres://*) creds=$("$BIN" client add --database "$location" "$@") ;;
    *) creds=$("$BIN" client add --data "$location" "$@") ;;
  esac
  curl -s -X POST "$BASE/api/oauth/token?_app" --data-urlencode grant_type=client_credentials \
    --data-urlencode "client_id=$(awk '/client id/ {print $3}' <<< "$creds")" \
    --data-urlencode "client_secret=$(awk '/client secret/ {print $3}' <<< "$creds")" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])'
}
