#!/usr/bin/env bash
# Several halo-server processes sharing one PostgreSQL database, behind nginx, on this machine
# (docs/deploy.md). Runs in the foreground; Ctrl-C (or SIGTERM) stops nginx and every process.
#
#   PGPASSWORD=… scripts/serve-cluster.sh --database postgres://USER@HOST:PORT/DB [--port 8080]
#       [--processes 3] [--binary PATH] [-- MORE SERVE OPTIONS]
#
# The password comes from PGPASSWORD or ~/.pgpass (PGPASSFILE), never from the command line.
# Prints "cluster ready on http://127.0.0.1:PORT (processes: PID:PORT …)" once nginx accepts.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
database=""
port=8080
processes=3
binary=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --database) database=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --processes) processes=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "serve-cluster: unknown option $1 (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
if [ -z "$database" ]; then
  echo "serve-cluster: --database postgres://USER@HOST:PORT/DB is required" >&2
  exit 2
fi
if [ -z "$binary" ]; then
  binary="$root/.build/release/halo-server"
  [ -x "$binary" ] || binary="$root/.build/debug/halo-server"
fi
if [ ! -x "$binary" ]; then
  echo "serve-cluster: no halo-server built (run: swift build -c release --product halo-server)" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/halo-cluster.XXXXXX")
pids=()
stop() {
  trap - EXIT INT TERM
  [ -n "${nginx_pid:-}" ] && kill -TERM "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap stop EXIT
trap 'exit 0' INT TERM

# The processes: any free port each; nginx is their only client, so X-Forwarded-For from it
# names the real client for the per-address limits.
ports=()
for n in $(seq 1 "$processes"); do
  "$binary" serve --database "$database" --port 0 --data "$work/process-$n" --trusted-proxy 127.0.0.1 --quiet \
    "${extra[@]}" 2> "$work/process-$n.log" &
  pids+=($!)
done
for n in $(seq 1 "$processes"); do
  log="$work/process-$n.log"
  for _ in $(seq 1 600); do
    grep -q "listening on" "$log" 2>/dev/null && break
    if ! kill -0 "${pids[$((n - 1))]}" 2>/dev/null; then
      echo "serve-cluster: process $n did not start:" >&2
      cat "$log" >&2
      exit 1
    fi
    sleep 0.05
  done
  ports+=("$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$log" | head -1)")
done

"$root/scripts/nginx-balancer.sh" "$work/nginx" "$port" "${ports[@]}" &
nginx_pid=$!
for _ in $(seq 1 200); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    listing=""
    for n in $(seq 1 "$processes"); do listing="$listing ${pids[$((n - 1))]}:${ports[$((n - 1))]}"; done
    echo "cluster ready on http://127.0.0.1:$port (processes:$listing)"
    wait "$nginx_pid"
    exit $?
  fi
  kill -0 "$nginx_pid" 2>/dev/null || { echo "serve-cluster: nginx did not start:" >&2; cat "$work/nginx/error.log" >&2; exit 1; }
  sleep 0.05
done
echo "serve-cluster: nginx did not accept on port $port" >&2
exit 1
