#!/usr/bin/env bash
# The test suite on PostgreSQL with the instrumented store (scripts/shard-check.mjs): prints
# every statement that touched a table distributed by account without naming the account,
# once each, with where it came from. docs/sharding.md lists them and how each changes.
#
#   scripts/shard-check.sh [vitest arguments]     (SHARD_CHECK=fail makes each one fail its test)
set -euo pipefail
cd "$(dirname "$0")/.."
LOG=$(mktemp /tmp/shard-check.XXXXXX)
status=0
NODE_OPTIONS="--import $PWD/scripts/shard-check.mjs" SHARD_CHECK_LOG=$LOG TEST_ENGINES=postgres \
  npx vitest run --project main "$@" || status=$?
node scripts/shard-check-summary.mjs "$LOG"
echo "(every statement: $LOG)"
exit $status
