#!/usr/bin/env bash
# `make test`'s runner: every test under the desktop session of gui-session.sh, the whole output kept in
# test-artifacts/test-output.log, and the failures repeated at the end. CI keeps only the tail of what a
# run printed, and a failure line from the middle of 300 tests would otherwise be lost.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-artifacts
log=test-artifacts/test-output.log
HALO_REQUIRE_GUI=1 bash scripts/gui-session.sh swift test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "run-tests: the run failed (exit $status). Its failures, from $log:"
  grep -E "error: |' failed \(|✘ " "$log" | tail -40
fi
exit "$status"
