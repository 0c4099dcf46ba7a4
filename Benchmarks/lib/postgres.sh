# A private PostgreSQL for the benchmarks that need one. Source it after halo-server.sh:
#
#   start_postgres        # PG_ADDRESS (database "bench", for --database), PG_PID, PG_SOCKET
#   pg_sql "SELECT …"     # runs SQL in the bench database over the Unix socket
#   pg_cpu                # user+sys CPU seconds of PostgreSQL's processes so far
#
# The cluster is stopped and removed by bench_cleanup. Settings: PostgreSQL 15's defaults, but
# synchronous_commit=off, which loses at most the last commits on a power loss (never on a crash
# of either process), as halo-server's SQLite does with synchronous=NORMAL: the two compare at
# the same durability. Loopback connections are trusted (no password: a benchmark's own cluster).

# Runs a PostgreSQL program as the cluster's owner (PostgreSQL refuses root). `exec`, so that a
# program started with `&` is itself the background job: PG_PID is the postmaster's.
pg_as_owner() {
  if [ "$(id -u)" = 0 ]; then exec setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; else exec "$@"; fi
}

start_postgres() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -x "$bin/initdb" ] || { echo "PostgreSQL is not installed: run make setup"; exit 1; }
  PG_DIR=$(mktemp -d /tmp/halo-bench-pg.XXXXXX)
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$PG_DIR"
  PG_SOCKET=$PG_DIR
  PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  (pg_as_owner "$bin/initdb" -D "$PG_DIR/data" -U halo --auth=trust -E UTF8 --locale=C > "$PG_DIR/initdb.log")
  (pg_as_owner "$bin/postgres" -D "$PG_DIR/data" -p "$PG_PORT" -k "$PG_SOCKET" -c listen_addresses=127.0.0.1 \
    -c synchronous_commit=off -c max_connections=200 > "$PG_DIR/postgres.log" 2>&1) &
  PG_PID=$!
  for _ in $(seq 1 200); do
    "$bin/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" && break
    sleep 0.05
  done
  PG_BIN=$bin
  "$bin/psql" -h "$PG_SOCKET" -p "$PG_PORT" -U halo -d postgres -XAtq -c "CREATE DATABASE bench"
  PG_ADDRESS="postgres://halo@127.0.0.1:$PG_PORT/bench?sslmode=disable"
}

pg_sql() { "$PG_BIN/psql" -h "$PG_SOCKET" -p "$PG_PORT" -U halo -d bench -XAtq -c "$1"; }

pg_cpu() {
  local total=0 pid
  for pid in $PG_PID $(pgrep -P "$PG_PID"); do
    total=$(awk -v a="$total" -v b="$(awk '{print ($14 + $15) / 100}' "/proc/$pid/stat" 2>/dev/null || echo 0)" 'BEGIN{print a+b}')
  done
  echo "$total"
}

stop_postgres() {
  [ -n "${PG_PID:-}" ] || return 0
  kill -INT "$PG_PID" 2>/dev/null || true
  wait "$PG_PID" 2>/dev/null || true
  rm -rf "$PG_DIR"
  PG_PID=""
}
