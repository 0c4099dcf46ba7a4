#!/usr/bin/env bash
# `make test`'s runner: every test under the desktop session of gui-session.sh, the whole output kept in
# test-artifacts/test-output.log, and the failures repeated at the end. CI keeps only the tail of what a
# run printed, and a failure line from the middle of 300 tests would otherwise be lost.
set -uo pipefail
cd "$(dirname "$0")/.."
#
# Then the server suite and the SDK's flow tests run again on PostgreSQL, as three halo-server processes
# on one database behind nginx (HALO_TEST_BACKEND, default postgres-cluster; see TestDeployment). The
# PostgreSQL-only suites ran in the first pass already. `--postgres-only` runs that pass alone.
mkdir -p test-artifacts
log=test-artifacts/test-output.log
postgres_suites='HaloServerTests|HaloServicesTests\.(FlowTests|SeedSamplesTests|AuthTests|BrowserSignInTests|CLIBrowserSignInTests|CLITests|CoreTests|PocketTests|PrivateFilesTests)'
postgres_only_suites='Postgres|Conformance|AcrossProcesses|ClusterFault'
status=0
if [ "${1:-}" = "--postgres-only" ]; then
  shift
  : > "$log"
else
  HALO_REQUIRE_GUI=1 bash scripts/gui-session.sh swift test --skip-build "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
fi
echo "run-tests: the server suite and the SDK's flow tests on PostgreSQL (${HALO_TEST_BACKEND:-postgres-cluster})" | tee -a "$log"
HALO_TEST_BACKEND=${HALO_TEST_BACKEND:-postgres-cluster} HALO_REQUIRE_GUI=1 bash scripts/gui-session.sh \
  swift test --skip-build --filter "$postgres_suites" --skip "$postgres_only_suites" "$@" 2>&1 | tee -a "$log"
postgres_status=${PIPESTATUS[0]}
[ "$status" -ne 0 ] || status=$postgres_status
if [ "$status" -ne 0 ]; then
  echo "run-tests: the run failed (exit $status). Its failures, from $log:"
  grep -E "error: |' failed \(|✘ " "$log" | tail -40
fi
exit "$status"
