#!/usr/bin/env bash
# Runs inside scripts/gui-session.sh (Xvfb, D-Bus, unlocked keyring, AT-SPI). $1: the output folder.
# Live updates (issue 16): a save by another client to the row painted in the release halo-desk's
# list (target p50 ≤ 200 ms), next to the save's own round trip and the event's arrival on a raw
# stream in the same run.
set -euo pipefail
out=$1
rounds=${ROUNDS:-30}
source Benchmarks/lib/remote-workspace.sh
app_bench_setup

"$bin/halo-server" seed --data "$work/server" --instances 500 --modules 1 --seed 1 > /dev/null
serve_remote_workspace "$work/server" "$out/live-server.log" --editor
server=$SERVER

marks=$out/live-marks.txt
rm -f "$marks"
HALO_DESK_MARKS=$marks "$bin/halo-desk" --non-unique > "$out/live.log" 2>&1 &
desk=$!
/usr/bin/python3 Benchmarks/app/live_update.py "$desk" "$server" "$PASSWORD" "$URL" "Bench 1" "$rounds" "$marks" 600 \
  | tee "$out/live-driver.log" | grep -v "^found "
