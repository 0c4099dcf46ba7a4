#!/usr/bin/env bash
# Runs every benchmark under Benchmarks/ (each folder's run.sh) and prints its figures.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench-artifacts
found=0
for script in Benchmarks/*/run.sh; do
  [ -e "$script" ] || continue
  found=1
  echo "=== $(dirname "$script")"
  bash "$script"
done
[ $found -eq 1 ] || echo "bench: no benchmarks yet"
