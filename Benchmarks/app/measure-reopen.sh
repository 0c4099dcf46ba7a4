#!/usr/bin/env bash
# Runs inside scripts/gui-session.sh (Xvfb, D-Bus, unlocked keyring, AT-SPI). $1: the output folder.
# Reopening a module of 100,000 instances in the release halo-desk: click to first rows painted,
# online (asking a halo-server in its own process) and then offline (that server killed, the rows
# from the offline copy), and the longest frame while offline (issue 12: <= 150 ms, no frame over
# 50 ms). The floor is the same module online, in the same run.
set -euo pipefail
out=$1
rounds=${ROUNDS:-7}
source Benchmarks/lib/remote-workspace.sh
app_bench_setup

# A demo workspace (small modules such as Authors) plus "Bench 1" with 100,000 instances, served
# to HaloDesk as a remote workspace.
"$bin/halo-server" seed --data "$work/server" --demo > /dev/null
"$bin/halo-server" seed --data "$work/server" --instances 100000 --modules 1 --seed 1 > /dev/null
serve_remote_workspace "$work/server" "$out/reopen-server.log" --editor
server=$SERVER
password=$PASSWORD

marks=$out/reopen-marks.txt
rm -f "$marks"
HALO_DESK_MARKS=$marks "$bin/halo-desk" --non-unique > "$out/reopen.log" 2>&1 &
desk=$!
/usr/bin/python3 Benchmarks/app/reopen_module.py "$desk" "$server" "$password" "Bench 1" "Authors" "$rounds" "$marks" \
  "$XDG_CACHE_HOME" 600 | tee "$out/reopen-driver.log" | grep -v "^found "
