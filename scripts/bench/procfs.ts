// What the benchmarks read from /proc: each process's parent and CPU time, a
// process tree, and resident memory (summed over a tree, as `npm start` may run
// more than one process).
import fs from "node:fs";

/** Clock ticks per second of /proc/PID/stat (USER_HZ; 100 on Linux on every architecture Node runs on). */
export const TICKS_PER_SECOND = 100;

export interface ProcessEntry {
  parent: number;
  /** CPU time so far, user + system, in clock ticks. */
  ticks: number;
  command: string;
}

/** Every process now, by id (one that ends while it is read is left out). */
export function processTable(): Map<number, ProcessEntry> {
  const table = new Map<number, ProcessEntry>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const parsed = statOf(Number(entry));
    if (parsed) table.set(Number(entry), parsed);
  }
  return table;
}

function statOf(pid: number): ProcessEntry | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command may hold spaces and parentheses: the fields start after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const command = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    return { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]), command };
  } catch {
    return null;
  }
}

/** The process and every descendant. */
export function treeOf(root: number, table = processTable()): Set<number> {
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, { parent }] of table)
      if (tree.has(parent) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
  }
  return tree;
}

/** CPU time (user + system, all threads) a process has used so far, in ms. */
export function cpuMillisOf(pid: number): number {
  const entry = statOf(pid);
  if (!entry) throw new Error(`process ${pid} is gone`);
  return (entry.ticks * 1000) / TICKS_PER_SECOND;
}

/** A process's resident memory now and its peak so far (VmRSS, VmHWM of /proc/PID/status), in MiB. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}

/** Resident memory and peaks summed over a process tree, in MiB; a process that ended, or a zombie without memory, counts nothing. */
export function treeMemory(root: number): { rss: number; peak: number; processes: number } {
  let rss = 0;
  let peak = 0;
  const pids = treeOf(root);
  for (const pid of pids) {
    try {
      const m = memoryOf(pid);
      if (Number.isFinite(m.rss)) rss += m.rss;
      if (Number.isFinite(m.peak)) peak += m.peak;
    } catch {
      // Ended meanwhile.
    }
  }
  return { rss, peak, processes: pids.size };
}
