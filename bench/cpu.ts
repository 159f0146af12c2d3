/**
 * CPU time spent, read from /proc (Linux): of one process with all its threads (or each thread), and of a whole
 * PostgreSQL cluster (every backend and helper, and the children already reaped, which the
 * postmaster's own figures carry). The kernel counts in clock ticks (10 ms); the bench reads
 * them around thousands of requests.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MICROS = 10_000;

/** Fields of /proc/PID/stat after the command's closing parenthesis (the command may hold spaces). */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // gone between the listing and the read
  }
}

/** User and system CPU of each thread of a process, in µs, by thread id (the first thread's id is the process's). */
export function threadsCpu(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  let ids: string[];
  try {
    ids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads; // the process is gone
  }
  for (const id of ids) {
    const fields = statFields(`${pid}/task/${id}`);
    if (fields) threads.set(Number(id), (Number(fields[11]) + Number(fields[12])) * TICK_MICROS);
  }
  return threads;
}

/** User and system CPU of a process and its threads, in µs (fields utime, stime). */
export function processCpu(pid: number): number {
  const fields = statFields(pid);
  if (!fields) return 0;
  return (Number(fields[11]) + Number(fields[12])) * TICK_MICROS;
}

/**
 * CPU of every `postgres` process on the machine, in µs, with what the postmaster's reaped
 * children spent (cutime, cstime): a backend that ends during a measure still counts.
 */
export function postgresCpu(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let comm: string;
    try {
      comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm !== 'postgres') continue;
    const fields = statFields(Number(entry));
    if (!fields) continue;
    total += (Number(fields[11]) + Number(fields[12])) * TICK_MICROS;
    // The postmaster (its parent is no postgres): its reaped children too.
    const parent = Number(fields[1]);
    let parentComm = '';
    try {
      parentComm = readFileSync(`/proc/${parent}/comm`, 'utf8').trim();
    } catch {
      // The parent is gone: this process is counted as a child, not as the postmaster.
    }
    if (parentComm !== 'postgres') total += (Number(fields[13]) + Number(fields[14])) * TICK_MICROS;
  }
  return total;
}
