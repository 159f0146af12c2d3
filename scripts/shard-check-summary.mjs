// Groups what scripts/shard-check.mjs recorded (the file named as the argument): each
// statement once, whatever its parameters or rows of values, with how often it ran and where
// it came from.
import { readFileSync } from 'node:fs';

const lines = readFileSync(process.argv[2], 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const seen = new Map();
for (const { sql, tables, origin } of lines) {
  const key = sql
    .replace(/\$\d+/g, '$n')
    .replace(/\(\$n(, \$n)*\)/g, '($n, …)')
    .replace(/(\([^()]*(?:\([^()]*\)[^()]*)*\))(?:, \1)+/g, '$1, …');
  const entry = seen.get(key) ?? { tables, count: 0, origins: new Set() };
  entry.count++;
  if (origin) entry.origins.add(origin.replace(/ \(.*\/(src|dist)\//, ' (').replace(/:\d+\)$/, ')'));
  seen.set(key, entry);
}
console.log(`\n${seen.size} statements not routable to one shard (${lines.length} runs):`);
for (const [sql, { tables, count, origins }] of [...seen].sort((a, b) => b[1].count - a[1].count)) {
  console.log(`\n[${tables.join(', ')}] ×${count} ${[...origins].slice(0, 3).join('; ')}\n  ${sql.slice(0, 400)}`);
}
