#!/usr/bin/env bash
# Runs inside scripts/gui-session.sh (Xvfb, D-Bus, unlocked keyring, AT-SPI). $1: the output folder.
# Opening the filter builder (issue 13: <= 100 ms to first paint on a module of 50 fields) in the
# release halo-desk, built anew and reopened holding a nested 4-condition draft, wall and CPU time.
# The floor is the app's About window, opened in the same process alternately: also a transient
# libadwaita window built from scratch on each open (header bar, pages, rows), with nothing of the
# builder's own work, so the ratio is the builder's cost over any window's on this machine now.
set -euo pipefail
out=$1
rounds=${ROUNDS:-20}
source Benchmarks/lib/remote-workspace.sh
app_bench_setup

# Two modules of 50 fields of mixed types ("Bench 1" measured, "Bench 2" to switch away to),
# served to HaloDesk as a remote workspace.
"$bin/halo-server" seed --data "$work/server" --instances 2000 --modules 2 --fields 50 --seed 1 > /dev/null
serve_remote_workspace "$work/server" "$out/filter-builder-server.log"
server=$SERVER

marks=$out/filter-builder-marks.txt
rm -f "$marks"
HALO_DESK_MARKS=$marks "$bin/halo-desk" --non-unique > "$out/filter-builder.log" 2>&1 &
desk=$!
/usr/bin/python3 Benchmarks/app/open_filter_builder.py "$PASSWORD" "Bench 1" "Bench 2" "$rounds" "$marks" 600 \
  | tee "$out/filter-builder-driver.log" | grep -v "^found "
