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
node -e '
const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map(JSON.parse);
const seen = new Map();
for (const { sql, tables, origin } of lines) {
  const key = sql.replace(/\$\d+/g, "$n").replace(/\(\$n(, \$n)*\)/g, "($n, …)");
  const entry = seen.get(key) ?? { tables, count: 0, origins: new Set() };
  entry.count++;
  if (origin) entry.origins.add(origin.replace(/ \(.*\/(src|dist)\//, " (").replace(/:\d+\)$/, ")"));
  seen.set(key, entry);
}
console.log(`\n${seen.size} statements not routable to one shard (${lines.length} runs):`);
for (const [sql, { tables, count, origins }] of [...seen].sort((a, b) => b[1].count - a[1].count)) {
  console.log(`\n[${tables.join(", ")}] ×${count} ${[...origins].slice(0, 3).join("; ")}\n  ${sql.slice(0, 400)}`);
}' "$LOG"
echo "(every statement: $LOG)"
exit $status
