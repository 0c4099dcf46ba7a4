# Shared by the app benchmarks that sign in to a halo-server in its own process, as a user of a
# remote workspace would. Source it from the package root:
#
#   source Benchmarks/lib/remote-workspace.sh
#   app_bench_setup                                                        # work, bin, XDG_*, cleanup
#   serve_remote_workspace "$work/server" "$out/server.log" [--editor]   # SERVER, URL, PASSWORD
#
# app_bench_setup: a private XDG home in `work`, the release binaries in `bin`, X11 with the cairo
# renderer (as under Xvfb), and on exit the app (`desk`) and `server` killed and `work` removed.
app_bench_setup() {
  export GSK_RENDERER=cairo GDK_BACKEND=x11
  work=$(mktemp -d)
  export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache
  bin=.build-release/release
  server="" desk=""
  trap 'kill -9 $desk $server 2>/dev/null || true; rm -rf "$work"' EXIT
}
#
# serve_remote_workspace DATA LOG [user add options…]: adds an app client and the user
# bench@example.com to the seeded DATA, serves it on a free loopback port (log in LOG), and makes
# HaloDesk remember that server as the Connect page leaves one (settings file, client secret in the
# keyring), so that halo-desk opens on its sign-in page.
serve_remote_workspace() {
  local data=$1 log=$2
  shift 2
  local client client_id client_secret port
  client=$("$bin/halo-server" client add --data "$data")
  client_id=$(awk -F': *' '/client id/{print $2}' <<< "$client")
  client_secret=$(awk -F': *' '/client secret/{print $2}' <<< "$client")
  PASSWORD=bench-$RANDOM-password
  "$bin/halo-server" user add --data "$data" --email bench@example.com --password "$PASSWORD" "$@" > /dev/null
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$bin/halo-server" serve --data "$data" --port "$port" --quiet > "$log" 2>&1 &
  SERVER=$!
  URL="http://127.0.0.1:$port"
  for _ in $(seq 100); do curl -s -o /dev/null "$URL/api/authentication/version" && break; sleep 0.1; done

  mkdir -p "$XDG_CONFIG_HOME/halo-desk"
  cat > "$XDG_CONFIG_HOME/halo-desk/settings.json" <<JSON
{"workspace": "remote", "environment": "$URL", "clientId": "$client_id", "lastEmail": "bench@example.com",
 "numberOfRetries": 1, "logLevel": "warning", "disableSSLPinning": false}
JSON
  printf %s "$client_secret" | secret-tool store --label "HaloDesk benchmark client" \
    xdg:schema io.github.halodesk.HaloDesk.Credential server "halo-desk-remote:$URL" account "client:$client_id"
}
