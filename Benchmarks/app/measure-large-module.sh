#!/usr/bin/env bash
# Runs inside scripts/gui-session.sh (Xvfb, D-Bus, unlocked keyring, AT-SPI). $1: the output folder.
# Peak RSS of the release halo-desk with a 100,000-instance module listed, against a bare GTK 4
# hello-world in the same session. The module lives on a halo-server in its own process (a remote
# workspace, as a large deployment would be); the app is driven over AT-SPI like a user: sign in,
# pick the module in the sidebar, wait for its total in the status area.
set -euo pipefail
out=$1
instances=${INSTANCES:-100000}
driver=Benchmarks/app/list_module.py
source Benchmarks/lib/remote-workspace.sh
app_bench_setup

# 1. A server with one module of $instances instances, an app client and a user, which HaloDesk
#    remembers (it opens on its sign-in page).
"$bin/halo-server" seed --data "$work/server" --instances "$instances" --modules 1 --seed 1 > /dev/null
serve_remote_workspace "$work/server" "$out/large-module-server.log"
server=$SERVER
password=$PASSWORD

# 3. Sign in, open the module, wait for its total; then read the peak RSS (VmHWM).
total=$(/usr/bin/python3 -c "print(f'{$instances:,}')")
"$bin/halo-desk" --non-unique > "$out/large-module.log" 2>&1 &
desk=$!
start=$(date +%s%N)
/usr/bin/python3 "$driver" halo-desk "Bench 1" "$total instances" 180 "$password" > "$out/large-module-driver.log"
listed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
sleep 1  # let the visible rows bind and paint
desk_kb=$(awk '/VmHWM/{print $2}' "/proc/$desk/status")
kill "$desk"; wait "$desk" 2>/dev/null || true; desk=""

# 4. The floor: the GTK hello-world's peak RSS in the same session (median of 3).
hello_kb=$(for _ in 1 2 3; do /usr/bin/time -f %M "$out/gtk-hello" 2>&1 >/dev/null | tail -1; done | sort -n | sed -n 2p)
awk -v d="$desk_kb" -v h="$hello_kb" -v n="$total" -v t="$listed_ms" 'BEGIN {
  printf "peak RSS with a %s-instance module listed (remote halo-server on loopback; %d ms from launch to listed):\n", n, t
  printf "  gtk4 hello-world  %7.1f MB\n", h / 1024
  printf "  halo-desk         %7.1f MB   +%.1f MB   (target <= +60 MB)\n", d / 1024, (d - h) / 1024 }'
