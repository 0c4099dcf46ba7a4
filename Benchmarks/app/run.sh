#!/usr/bin/env bash
# App start-up figures (issue: HaloDesk windows). Cold start of the release halo-desk to its first
# painted main window, and its peak RSS, against a bare GTK 4 hello-world measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=bench-artifacts/app
mkdir -p "$out"

gcc -O2 Benchmarks/app/gtk-hello.c -o "$out/gtk-hello" $(pkg-config --cflags --libs gtk4)
gcc -O2 Benchmarks/app/adw-hello.c -o "$out/adw-hello" $(pkg-config --cflags --libs libadwaita-1)
bash scripts/swift-release.sh --product halo-desk 2>&1 | { grep -E "error:|complete" || true; } | tail -1
bash scripts/gui-session.sh bash Benchmarks/app/measure.sh "$out"
