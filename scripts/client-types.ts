/**
 * `npm run client-types`: writes the typed client's types (src/client/api-types.ts) from the
 * OpenAPI document the server serves, with openapi-typescript, so that they cannot drift from
 * what the routes describe. `--check` changes nothing and fails when the file is out of date
 * (the test suite runs the same comparison).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { clientTypesFrom, openApiDocument } from './openapi-document.js';

const TARGET = fileURLToPath(new URL('../src/client/api-types.ts', import.meta.url));

const fresh = await clientTypesFrom(await openApiDocument());
if (process.argv.includes('--check')) {
  if (readFileSync(TARGET, 'utf8') !== fresh) {
    process.stderr.write('src/client/api-types.ts is out of date: run npm run client-types\n');
    process.exitCode = 1;
  }
} else {
  writeFileSync(TARGET, fresh);
  process.stdout.write(`wrote ${TARGET}\n`);
}
