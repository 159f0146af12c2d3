/**
 * The layering rules (.dependency-cruiser.cjs) hold for the code, and they do fail a tree that
 * breaks one (a fixture whose route imports the store).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONFIG = `${ROOT}.dependency-cruiser.cjs`;
const DEPCRUISE = `${ROOT}node_modules/dependency-cruiser/bin/dependency-cruise.mjs`;

function depcruise(cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, '--output-type', 'err'], { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr });
    });
  });
}

describe('architecture', () => {
  it('keeps the layering: no import runs the wrong way, no import circle', async () => {
    const { code, output } = await depcruise(ROOT);
    expect(output).toMatch(/no dependency violations found/);
    expect(code).toBe(0);
  }, 60_000);

  it('fails a tree that breaks a rule', async () => {
    const { code, output } = await depcruise(`${ROOT}test/fixtures/broken-layering`);
    expect(code).not.toBe(0);
    expect(output).toMatch(/http-not-store: src\/http\/route\.ts → src\/store\/repository\.ts/);
  }, 60_000);
});
