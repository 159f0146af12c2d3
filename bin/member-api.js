#!/usr/bin/env node
// The `member-api` command runs the compiled sources in dist/, which `npm install` builds
// (the `prepare` script) and `npm start` / `npm test` rebuild when a source changed.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('member-api: dist/ is missing; run `npm run build` (npm install does it) first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv);
