import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

// What a phase cost the machine: the server process's resident memory
// (VmRSS, sampled every second) and CPU, this process's CPU, the local
// PostgreSQL's processes' CPU, and the whole machine's CPU (/proc/stat).
// Linux only.

export interface ResourceUsage {
  /** Server RSS in MB: the largest sample, the first and the last of the phase. */
  readonly serverRssMaxMb?: number;
  readonly serverRssStartMb?: number;
  readonly serverRssEndMb?: number;
  /** Percent of one core. */
  readonly serverCpuPercent?: number;
  /**
   * Percent of the phase the server's main thread was ready to run but waited
   * for a core (/proc/<pid>/schedstat): time a request waits that no code of
   * the service spends.
   */
  readonly serverRunQueueWaitPercent?: number;
  readonly clientCpuPercent: number;
  /**
   * The local PostgreSQL's processes (none for the embedded database): its
   * background processes, and its backends (all, or only the run's: scopePostgresCpu).
   */
  readonly postgresCpuPercent?: number;
  /** Percent of all cores together. */
  readonly machineCpuPercent: number;
}

export interface ResourceMonitor {
  /** Starts measuring a phase; the function it returns ends it. */
  begin(): () => ResourceUsage;
  close(): void;
}

const SAMPLE_INTERVAL_MS = 1000;
const TICKS_PER_SECOND = clockTicks();

/** `postgres`: also measure the local PostgreSQL server's processes. */
export function createResourceMonitor(serverPid: number | undefined, options = { postgres: false }): ResourceMonitor {
  const listeners = new Set<(rssKb: number) => void>();
  const timer = setInterval(() => {
    const rss = serverPid === undefined ? undefined : readRssKb(serverPid);
    if (rss !== undefined) for (const listener of listeners) listener(rss);
  }, SAMPLE_INTERVAL_MS);
  timer.unref();

  return {
    begin() {
      const rss: number[] = [];
      const listener = (kb: number) => void rss.push(kb);
      const first = serverPid === undefined ? undefined : readRssKb(serverPid);
      if (first !== undefined) rss.push(first);
      listeners.add(listener);
      const startedAt = performance.now();
      const serverTicks = serverPid === undefined ? undefined : readCpuTicks(serverPid);
      const serverWaitNs = serverPid === undefined ? undefined : readRunQueueWaitNs(serverPid);
      const client = process.cpuUsage();
      const postgres = options.postgres ? readPostgresTicks() : undefined;
      const machine = readMachineTicks();
      return () => {
        listeners.delete(listener);
        const last = serverPid === undefined ? undefined : readRssKb(serverPid);
        if (last !== undefined) rss.push(last);
        const seconds = (performance.now() - startedAt) / 1000;
        const clientUsed = process.cpuUsage(client);
        const machineNow = readMachineTicks();
        const serverNow = serverPid === undefined ? undefined : readCpuTicks(serverPid);
        const serverWaitNowNs = serverPid === undefined ? undefined : readRunQueueWaitNs(serverPid);
        const machineTotal = machineNow.total - machine.total;
        const postgresNow = options.postgres ? readPostgresTicks() : undefined;
        return {
          ...(rss.length > 0
            ? {
                serverRssMaxMb: Math.max(...rss) / 1024,
                serverRssStartMb: rss[0] / 1024,
                serverRssEndMb: rss[rss.length - 1] / 1024,
              }
            : {}),
          ...(serverTicks !== undefined && serverNow !== undefined
            ? { serverCpuPercent: ((serverNow - serverTicks) / TICKS_PER_SECOND / seconds) * 100 }
            : {}),
          ...(serverWaitNs !== undefined && serverWaitNowNs !== undefined
            ? { serverRunQueueWaitPercent: ((serverWaitNowNs - serverWaitNs) / 1e9 / seconds) * 100 }
            : {}),
          clientCpuPercent: ((clientUsed.user + clientUsed.system) / 1e6 / seconds) * 100,
          ...(postgres !== undefined && postgresNow !== undefined
            ? { postgresCpuPercent: (ticksSpent(postgres, postgresNow) / TICKS_PER_SECOND / seconds) * 100 }
            : {}),
          machineCpuPercent: machineTotal > 0 ? ((machineNow.busy - machine.busy) / machineTotal) * 100 : 0,
        };
      };
    },
    close() {
      clearInterval(timer);
    },
  };
}

/**
 * CPU that none of the measured processes used (% of one core): other work on
 * the machine, which disturbs the phase's figures.
 */
export function otherCpuPercent(usage: ResourceUsage, cpuCount: number): number {
  const measured = (usage.serverCpuPercent ?? 0) + usage.clientCpuPercent + (usage.postgresCpuPercent ?? 0);
  return Math.max(0, usage.machineCpuPercent * cpuCount - measured);
}

/** Above this much CPU of other work (% of one core) a phase is reported as disturbed. */
export const DISTURBED_ABOVE_PERCENT = 25;

/** How busy the whole machine is over one second: other work there disturbs every figure. */
export async function machineBusyPercent(): Promise<number> {
  const monitor = createResourceMonitor(undefined);
  const finish = monitor.begin();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  monitor.close();
  return finish().machineCpuPercent;
}

/** A process's resident memory now, in MB. */
export function rssMb(pid: number): number | undefined {
  const kb = readRssKb(pid);
  return kb === undefined ? undefined : kb / 1024;
}

function readRssKb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** utime + stime of a process, in clock ticks. */
function readCpuTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces; fields after it are plain.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** Nanoseconds the process's main thread has spent runnable but waiting for a core (schedstat's second field). */
function readRunQueueWaitNs(pid: number): number | undefined {
  try {
    const wait = Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[1]);
    return Number.isFinite(wait) ? wait : undefined;
  } catch {
    return undefined;
  }
}

/** Backends of databases whose name holds this are measured; undefined: every backend. */
let backendScope: string | undefined;

/**
 * On a shared server, other people's databases are no part of the run: count
 * only the backends of databases whose name holds `part` (the run's stamp),
 * and the server's background processes (WAL writer, checkpointer, …), which
 * cannot be told apart.
 */
export function scopePostgresCpu(part: string): void {
  backendScope = part;
}

/** A backend's title: "postgres: 15/main: user database 127.0.0.1(47880) idle". */
const BACKEND_TITLE = /\(\d+\)|\[local\]/;

function countsAsOurs(pid: string): boolean {
  if (backendScope === undefined) return true;
  const title = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  return !BACKEND_TITLE.test(title) || title.includes(backendScope);
}

/** CPU ticks of each PostgreSQL process (backends come and go, so per pid). */
function readPostgresTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return ticks;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres" || !countsAsOurs(entry)) continue;
    } catch {
      continue;
    }
    const pid = Number(entry);
    const spent = readCpuTicks(pid);
    if (spent !== undefined) ticks.set(pid, spent);
  }
  return ticks;
}

/** Ticks spent between two readings; a process that started in between counts from zero. */
function ticksSpent(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, now] of after) total += now - (before.get(pid) ?? 0);
  return total;
}

function readMachineTicks(): { busy: number; total: number } {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0];
    // user nice system idle iowait irq softirq steal (guest time is already inside user).
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = ticks.reduce((sum, n) => sum + n, 0);
    const idle = ticks[3] + (ticks[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

function clockTicks(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}
