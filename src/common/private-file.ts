/**
 * Files that hold secrets (an export with its password hashes, an import's rejected rows with
 * their plain passwords, a backup, the SQLite store): made new, readable by their owner only,
 * and never through what is already at the path. A link planted there (to another user's
 * file, or to one that others can read) or an older file is refused, not written through.
 */
import { extname } from 'node:path';
import { closeSync, constants, createWriteStream, lstatSync, openSync, unlinkSync, writeSync, type WriteStream } from 'node:fs';

/** Only the owner may read or write (the umask can only take bits away). */
const OWNER_ONLY = 0o600;
/** Create, and fail if anything is at the path: a file, or a link (followed by nothing). */
const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** A path where something is already (EEXIST). */
export class PathTaken extends Error {
  constructor(path: string, what: string, choose: string, options?: ErrorOptions) {
    super(`${what} "${path}" already exists (a file or a link): remove it or choose ${choose}; it is never written over`, options);
  }
}

/**
 * Creates `path`, empty, with mode 600, and answers its descriptor. `what` names the file in
 * the refusal when something is already there (`the export file`), `choose` how to name
 * another (`--output FILE`).
 */
export function createPrivateFile(path: string, what: string, choose = 'another name'): number {
  try {
    return openSync(path, NEW_FILE, OWNER_ONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      // A device (`--rejects /dev/null`) keeps nothing: written to as it is.
      if (isDevice(path)) return openSync(path, 'w');
      throw new PathTaken(path, what, choose, { cause: error });
    }
    throw error;
  }
}

function isDevice(path: string): boolean {
  try {
    return lstatSync(path).isCharacterDevice();
  } catch {
    return false;
  }
}

/**
 * `path` when nothing is there, else the first free one of `STEM.1.EXT`, `STEM.2.EXT`, …: a
 * file made by default beside an earlier run's (whose rejects are kept) takes the next name.
 * (The file is still made by createPrivateFile: one taken meanwhile is refused, not opened.)
 */
export function freePath(path: string): string {
  const ext = extname(path);
  const stem = path.slice(0, path.length - ext.length);
  for (let n = 0; n < 10_000; n++) {
    const candidate = n === 0 ? path : `${stem}.${n}${ext}`;
    if (!exists(candidate)) return candidate;
  }
  return path;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** A write stream over a file made by createPrivateFile. */
export function privateWriteStream(path: string, what: string, choose?: string): WriteStream {
  return createWriteStream(path, { fd: createPrivateFile(path, what, choose) });
}

/**
 * Refuses at once a path that createPrivateFile would refuse later: for a file made only when
 * there is something to write in it, after work that should not begin at all.
 */
export function refuseTakenPath(path: string, what: string, choose = 'another name'): void {
  if (exists(path) && !isDevice(path)) throw new PathTaken(path, what, choose);
}

/**
 * Makes `path` an empty file only its owner may read when nothing is there yet, and leaves
 * whatever is there (a store that exists is opened as it is).
 */
export function createPrivateFileIfMissing(path: string): void {
  try {
    closeSync(openSync(path, NEW_FILE, OWNER_ONLY));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * Writes `text` to `path` as a new file only its owner may read, in place of whatever was
 * there: an older file is removed first, and so is a link (never followed to its target).
 */
export function replaceWithPrivateFile(path: string, text: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const fd = createPrivateFile(path, 'the file');
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
