#!/usr/bin/env bash
# HaloContentStore search speed: the nested 4-condition filter over 100,000 instances in 10
# modules (all modules and one module), page of 50 with totals, against a naive json_extract
# full scan in the sqlite3 CLI on the same data, measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/swift-release.sh --product bench-content-store 2>&1 | { grep -E "error:|complete" || true; } | tail -1
"$(bash scripts/swift-release.sh --show-bin-path)/bench-content-store" "$@"
