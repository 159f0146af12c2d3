import { readFileSync } from 'node:fs';

/** The version in package.json (one level above both src/ and dist/). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
