#!/bin/sh
# nginx in front of halo-server processes, in the foreground (scripts/serve-cluster.sh and the
# tests run it): writes DIRECTORY/nginx.conf from deploy/nginx.conf.in and execs nginx.
#
#   scripts/nginx-balancer.sh DIRECTORY LISTEN_PORT UPSTREAM_PORT...
set -eu
if [ $# -lt 3 ]; then
  echo "usage: $0 DIRECTORY LISTEN_PORT UPSTREAM_PORT..." >&2
  exit 2
fi
directory=$1
listen=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$directory"
upstreams=$(for port in "$@"; do
  # A process that refuses connections is left alone for 2 s, then tried again.
  printf '        server 127.0.0.1:%s max_fails=1 fail_timeout=2s;\n' "$port"
done)
awk -v prefix="$directory" -v listen="127.0.0.1:$listen" -v upstreams="$upstreams" '
  /^@UPSTREAMS@$/ { print upstreams; next }
  { gsub(/@PREFIX@/, prefix); gsub(/@LISTEN@/, listen); print }
' "$root/deploy/nginx.conf.in" > "$directory/nginx.conf"
exec nginx -p "$directory" -e "$directory/error.log" -c "$directory/nginx.conf"
