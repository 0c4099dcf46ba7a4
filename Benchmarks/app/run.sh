#!/usr/bin/env bash
# App figures (issue: HaloDesk windows), each against a bare GTK 4 hello-world in the same run:
#  - cold start of the release halo-desk to its first painted main window, and its peak RSS;
#  - peak RSS with a 100,000-instance module listed (measure-large-module.sh);
#  - reopening that module online and offline, and the longest frame offline (measure-reopen.sh);
#  - opening the filter builder on a module of 50 fields, against the About window
#    (measure-filter-builder.sh);
#  - a save by another client to the row painted in the list, against the save's round trip and
#    the event on a raw stream (measure-live-updates.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=bench-artifacts/app
mkdir -p "$out"

gcc -O2 Benchmarks/app/gtk-hello.c -o "$out/gtk-hello" $(pkg-config --cflags --libs gtk4)
gcc -O2 Benchmarks/app/adw-hello.c -o "$out/adw-hello" $(pkg-config --cflags --libs libadwaita-1)
bash scripts/swift-release.sh --product halo-desk 2>&1 | { grep -E "error:|complete" || true; } | tail -1
bash scripts/swift-release.sh --product halo-server 2>&1 | { grep -E "error:|complete" || true; } | tail -1
bash scripts/gui-session.sh bash Benchmarks/app/measure.sh "$out"
bash scripts/gui-session.sh bash Benchmarks/app/measure-large-module.sh "$out" 2>&1 | grep -v dbus-daemon
bash scripts/gui-session.sh bash Benchmarks/app/measure-reopen.sh "$out" 2>&1 | grep -v dbus-daemon
bash scripts/gui-session.sh bash Benchmarks/app/measure-filter-builder.sh "$out" 2>&1 | grep -v dbus-daemon
bash scripts/gui-session.sh bash Benchmarks/app/measure-live-updates.sh "$out" 2>&1 | grep -v dbus-daemon
