/**
 * Imports started from the console: the uploaded file in a private temporary folder, its
 * columns mapped to fields, a dry run that reports the rejects, then the run, each in the
 * background through the same importer as `member-api import` (its batches, its rules, its
 * rejects file), its progress read by the page that shows the job.
 *
 * A job lives in this server's memory and its folder: it is gone after a restart (the upload
 * is then made again; the folders an earlier process left are removed when the next starts), it
 * is seen only through the server that took the upload, and it is forgotten, its folder removed,
 * a day after it last changed (checked every few minutes), or when its account starts a sixth
 * upload. An account holds at most five, uploads in progress counted: a sixth upload is refused
 * while none of the five can go (each is being uploaded or run). A member's change goes through
 * the importer alone.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Account } from '../accounts/account.js';
import type { PasswordHasher } from '../auth/passwords.js';
import type { Clock } from '../common/clock.js';
import { privateWriteStream } from '../common/private-file.js';
import { ImportFileError, readColumns, readImportFile, RejectsFile, type FileFormat, type ReadRow } from './files.js';
import type { ImportSummary, MemberImporter } from './importer.js';

/** What a job is doing, or did last. */
export type ImportJobState = 'uploaded' | 'checking' | 'checked' | 'running' | 'done' | 'failed';

/** The first rejects of a run, shown on its page (all of them are in its rejects file). */
const SHOWN_REJECTS = 20;
/** A job is forgotten this long after it last changed. */
const JOB_LIFETIME_MS = 24 * 3600_000;
/** Jobs kept per account, uploads in progress counted: a new upload forgets the oldest that is not being uploaded or run, or is refused. */
export const JOBS_PER_ACCOUNT = 5;
/** How often the jobs past their lifetime are forgotten (besides at each request). */
const FORGET_EVERY_MS = 5 * 60_000;
/** The temporary folders of uploads: `member-api-import-PID-XXXXXX`, the process's id in the name. */
const TEMP_PREFIX = 'member-api-import-';

/** Whether a process of that id is there (one of another user's too). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let leftoversRemoved = false;

/**
 * Removes the upload folders earlier processes left in the temporary folder (they stopped
 * without their close()): those of a process no longer there, or of this process's id (one
 * before it had it: this process has made none yet), and those named before the id was in the
 * name once a day old. Those of a server running beside this one are left. Once a process.
 */
function removeLeftovers(now: number): void {
  if (leftoversRemoved) return;
  leftoversRemoved = true;
  const dir = tmpdir();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const path = join(dir, name);
    try {
      const pid = /^member-api-import-(\d+)-[A-Za-z0-9]{6}$/.exec(name)?.[1];
      const left =
        pid !== undefined
          ? Number(pid) === process.pid || !alive(Number(pid))
          : /^member-api-import-[A-Za-z0-9]{6}$/.test(name) && now - statSync(path).mtimeMs > JOB_LIFETIME_MS;
      if (left) rmSync(path, { recursive: true, force: true });
    } catch {
      // Another user's, or gone meanwhile: left as it is.
    }
  }
}

export interface ImportRun {
  readonly dryRun: boolean;
  readonly startedAt: number;
  endedAt?: number;
  /** Rows handled so far, and bytes of the file they end at. */
  handled: number;
  offset: number;
  summary?: ImportSummary;
  /** The first rejects (line and reason). */
  readonly rejects: Array<{ line: number; reason: string }>;
  rejected: number;
  /** The rejects file, once a row is rejected. */
  rejectsPath?: string;
  /** New members without a password: mailed a reset link (a run), or to be (a dry run). */
  withoutPassword: number;
  /** Why the run stopped, when it failed. */
  error?: string;
}

export interface ImportJob {
  readonly id: string;
  readonly accountId: number;
  readonly fileName: string;
  readonly format: FileFormat;
  readonly bytes: number;
  /** The file's columns, as it names them. */
  readonly columns: readonly string[];
  /** Column → target ('' leaves it out), once chosen. */
  mapping?: ReadonlyMap<string, string>;
  /** New members without a password are made, and mailed a reset link, rather than rejected. */
  passwordsByMail: boolean;
  state: ImportJobState;
  run?: ImportRun;
  changedAt: number;
}

/** What the operator is shown of a run stopped by an error the importer did not mean (the log has it whole). */
export const UNEXPECTED_FAILURE = 'the import stopped on an unexpected error; the server’s log has it';

/** An error the importer means, whose message tells the operator why the run stopped. */
class RunStopped extends Error {}

/** Where a run's failure is logged: the log of the request that started it (pino's signature). */
export interface RunLog {
  error(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/** Sends a new member without a password its reset mail (the /reset/ service). */
export type ResetMailer = (account: Account, login: string) => Promise<void>;

/** An upload refused: too large, or not a file of its format. */
export class UploadRefused extends Error {
  constructor(
    readonly reason: 'too-large' | 'format' | 'busy',
    message: string,
  ) {
    super(message);
  }
}

interface Held extends ImportJob {
  readonly folder: string;
  readonly path: string;
  running?: Promise<void>;
}

export class ImportJobs {
  private readonly jobs = new Map<string, Held>();
  /** Uploads in progress, by account: each holds the place of a job. */
  private readonly uploading = new Map<number, number>();
  /** The server stops: runs read no further row, and end with the batches they have. */
  private closing = false;
  private readonly forgetting: NodeJS.Timeout;

  constructor(
    private readonly importer: MemberImporter,
    /** Makes the password a new member without one is stored with: a hash of a secret nobody knows. */
    private readonly hasher: PasswordHasher,
    private readonly mailReset: ResetMailer,
    private readonly clock: Clock,
  ) {
    removeLeftovers(Date.now());
    // Jobs past their lifetime go even when no request comes (the timer keeps no process up).
    this.forgetting = setInterval(() => this.forget(), FORGET_EVERY_MS);
    this.forgetting.unref();
  }

  /**
   * Takes an upload: the stream into a new private file, then its columns read. `tooLarge`
   * tells, once the stream has ended, whether it was cut off at the size limit.
   */
  async receive(account: Account, fileName: string, format: FileFormat, file: Readable, tooLarge: () => boolean): Promise<ImportJob> {
    this.forget();
    this.makeRoom(account.id);
    this.uploading.set(account.id, (this.uploading.get(account.id) ?? 0) + 1);
    try {
      return await this.take(account, fileName, format, file, tooLarge);
    } finally {
      const left = (this.uploading.get(account.id) ?? 1) - 1;
      if (left > 0) this.uploading.set(account.id, left);
      else this.uploading.delete(account.id);
    }
  }

  private async take(account: Account, fileName: string, format: FileFormat, file: Readable, tooLarge: () => boolean): Promise<ImportJob> {
    const folder = mkdtempSync(join(tmpdir(), `${TEMP_PREFIX}${process.pid}-`));
    const path = join(folder, `upload.${format}`);
    try {
      await pipeline(file, privateWriteStream(path, 'the uploaded file'));
      if (tooLarge()) throw new UploadRefused('too-large', 'the file is larger than the server takes (IMPORT_UPLOAD_LIMIT_BYTES)');
      let columns: string[];
      try {
        columns = await readColumns(path, format);
      } catch (error) {
        throw new UploadRefused('format', error instanceof Error ? error.message : String(error));
      }
      const id = randomBytes(12).toString('base64url');
      const job: Held = {
        id,
        accountId: account.id,
        fileName,
        format,
        bytes: statSync(path).size,
        columns,
        passwordsByMail: false,
        state: 'uploaded',
        changedAt: this.clock(),
        folder,
        path,
      };
      this.jobs.set(id, job);
      return job;
    } catch (error) {
      rmSync(folder, { recursive: true, force: true });
      if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
        throw new UploadRefused('too-large', 'the file is larger than the server takes (IMPORT_UPLOAD_LIMIT_BYTES)');
      throw error;
    }
  }

  /** The account's job: another account's is as unknown as one never made. */
  find(account: Account, id: string): ImportJob | undefined {
    this.forget();
    const job = this.jobs.get(id);
    return job && job.accountId === account.id ? job : undefined;
  }

  /** The file of a run's rejects, when it has one. */
  rejectsFile(job: ImportJob): string | undefined {
    return job.run?.rejectsPath;
  }

  /**
   * Starts a run in the background: a dry run (nothing written) or the import, with the
   * mapping and the choice for members without a password. False when one is running already.
   */
  start(account: Account, job: ImportJob, dryRun: boolean, log: RunLog, choice?: { mapping: ReadonlyMap<string, string>; passwordsByMail: boolean }): boolean {
    const held = this.jobs.get(job.id);
    if (!held || held.accountId !== account.id || held.running) return false;
    if (choice) {
      held.mapping = choice.mapping;
      held.passwordsByMail = choice.passwordsByMail;
    }
    const run: ImportRun = { dryRun, startedAt: this.clock(), handled: 0, offset: 0, rejects: [], rejected: 0, withoutPassword: 0 };
    held.run = run;
    held.state = dryRun ? 'checking' : 'running';
    held.changedAt = this.clock();
    // Never rejects: execute() records its failures on the run; anything else is recorded too.
    held.running = this.execute(account, held, run, log)
      .catch((error: unknown) => this.failed(account, held, run, error, log))
      .finally(() => {
        held.running = undefined;
        held.changedAt = this.clock();
      });
    return true;
  }

  private async execute(account: Account, job: Held, run: ImportRun, log: RunLog): Promise<void> {
    // Only the columns the operator mapped are read (the page says so).
    const reader = readImportFile(job.path, job.format, job.mapping ?? new Map(), { onlyMapped: true });
    // The server stops: no row more is read; the batch read so far is written, as are those before it.
    const closing = () => this.closing;
    let stopped = false;
    async function* rows(): AsyncIterable<ReadRow> {
      for await (const row of reader.rows) {
        if (closing()) {
          stopped = true;
          return;
        }
        yield row;
      }
    }
    let rejects: RejectsFile | undefined;
    try {
      const passwordForNew = job.passwordsByMail ? await this.hasher.hash(randomBytes(32).toString('base64url')) : undefined;
      run.summary = await this.importer.run(
        account,
        rows(),
        { dryRun: run.dryRun, keepIds: false, source: job.fileName, ...(passwordForNew ? { passwordForNew } : {}) },
        {
          rejected: async (row, reason) => {
            run.rejected++;
            if (run.rejects.length < SHOWN_REJECTS) run.rejects.push({ line: row.line, reason });
            rejects ??= new RejectsFile(join(job.folder, `rejected-${randomBytes(6).toString('hex')}.${job.format}`), job.format, reader.header);
            run.rejectsPath = rejects.path;
            await rejects.write(row as ReadRow, reason);
          },
          progress: (handled, row) => {
            run.handled = handled;
            run.offset = Math.max(run.offset, (row as ReadRow).offset);
          },
          withoutPassword: async (logins) => {
            run.withoutPassword += logins.length;
            if (!run.dryRun) for (const login of logins) await this.mailReset(account, login);
          },
        },
      );
      if (stopped) throw new RunStopped('the server stopped during the run: upload the file again to finish it (a rerun changes nothing it changed already)');
      job.state = run.dryRun ? 'checked' : 'done';
    } catch (error) {
      this.failed(account, job, run, error, log);
    } finally {
      // A run stopped early (a failure, the server stopping) leaves its file open no longer.
      reader.close();
      try {
        await rejects?.close();
      } catch (error) {
        // The rejects file could not be written (a full disk): the run is not whole.
        if (job.state !== 'failed') this.failed(account, job, run, error, log);
      }
      run.endedAt ??= this.clock();
    }
  }

  /**
   * Records the run as failed, and logs it with the account and the job. The operator reads
   * the importer's own reasons as they are, and of any other error only that it happened.
   */
  private failed(account: Account, job: Held, run: ImportRun, error: unknown, log: RunLog): void {
    const meant = error instanceof ImportFileError || error instanceof RunStopped;
    const fields = { account: account.name, accountId: account.id, importJob: job.id, dryRun: run.dryRun, err: error };
    if (meant) log.info(fields, 'console import stopped');
    else log.error(fields, 'console import failed');
    run.error = meant ? error.message : UNEXPECTED_FAILURE;
    run.endedAt ??= this.clock();
    job.state = 'failed';
  }

  /** Stops the runs in progress at their next row (the batches read so far are written), then removes every job's folder (the server stops). */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.forgetting);
    await Promise.allSettled([...this.jobs.values()].map((job) => job.running));
    for (const job of this.jobs.values()) rmSync(job.folder, { recursive: true, force: true });
    this.jobs.clear();
  }

  /** Forgets the jobs that have not changed for a day (and are not running). */
  private forget(): void {
    const now = this.clock();
    for (const job of this.jobs.values()) if (!job.running && now - job.changedAt > JOB_LIFETIME_MS) this.drop(job);
  }

  /**
   * Makes room for one more job of the account (an upload about to begin): its oldest jobs
   * that are not running go, until it holds fewer than JOBS_PER_ACCOUNT, uploads in progress
   * counted. Refused when none can go.
   */
  private makeRoom(accountId: number): void {
    const held = [...this.jobs.values()].filter((job) => job.accountId === accountId).sort((a, b) => a.changedAt - b.changedAt);
    let count = held.length + (this.uploading.get(accountId) ?? 0);
    for (const job of held) {
      if (count < JOBS_PER_ACCOUNT) break;
      if (job.running) continue;
      this.drop(job);
      count--;
    }
    if (count >= JOBS_PER_ACCOUNT)
      throw new UploadRefused(
        'busy',
        `this account has ${JOBS_PER_ACCOUNT} imports being uploaded or run, the most the server holds at once: upload the file once one of them has ended`,
      );
  }

  private drop(job: Held): void {
    this.jobs.delete(job.id);
    rmSync(job.folder, { recursive: true, force: true });
  }
}
