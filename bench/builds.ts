/**
 * An earlier commit's build beside this checkout, for the rows that compare two builds in one
 * run (`npm run bench -- --before REF`): a git worktree of the commit in .bench/builds/, sharing
 * this checkout's node_modules (the same packages: a commit whose lock file differs is refused),
 * built with its own `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { ROOT } from './lib.js';
import type { Build } from './cost.js';

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

export function buildOf(ref: string): Build {
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const short = commit.slice(0, 7);
  if (git('diff', '--name-only', commit, 'HEAD', '--', 'package-lock.json') !== '') {
    throw new Error(`--before ${ref}: its package-lock.json differs from this checkout's; build it in a clone of its own`);
  }
  const folder = `${ROOT}.bench/builds/${short}`;
  if (!existsSync(folder)) {
    mkdirSync(`${ROOT}.bench/builds`, { recursive: true });
    git('worktree', 'add', '--detach', '--force', folder, commit);
    symlinkSync(`${ROOT}node_modules`, `${folder}/node_modules`, 'dir');
  }
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: folder, stdio: 'inherit' });
  return { name: short, bin: `${folder}/bin/member-api.js` };
}
