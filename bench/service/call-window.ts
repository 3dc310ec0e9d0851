import { awaitFiguresCounted } from "./contact-figures-settle.ts";

// What a loop of calls costs the database, counted so that only the calls' own work is charged to them.
//
// The service does work of its own beside the calls. Two kinds matter here:
// - counting ended calls into the contact figures, a job that runs up to half a minute after an end. Its work on
//   the loop's calls is theirs; its work on calls made before (a growth step's backlog) is not. So the window
//   opens once every earlier call is counted, and closes once the loop's own are.
// - work by the second (key use flushed, usage counts, sweeps), the same whatever the calls. Charged to the loop
//   while it runs, as before; while the window waits for the job after the loop, the idle server's rate, measured
//   just before the loop, is taken off.
// Counts come from readers returning counters by name (one name for PostgreSQL's total, one per statement or per
// relation); each is charged the same way.

export type Counts = Map<string, number>;
export type CountReader = () => Promise<Counts>;

/** How long the idle server's rate is measured, after the earlier calls are counted. */
const IDLE_PROBE_MS = 5000;
/** PostgreSQL's other sessions report their counts within a second of going idle. */
const STATS_SETTLE_MS = 1500;

export interface CallWindow<T> {
  readonly result: T;
  /** The loop's own duration. */
  readonly seconds: number;
  /** How long the window stayed open after the loop, for the job to count its calls. */
  readonly settleSeconds: number;
  /** Per reader: what the window counted, less the idle rate over the settling time; never below zero. */
  readonly counts: Counts[];
  /** Per reader: the idle server's count per second. */
  readonly idlePerSecond: Counts[];
}

export async function measureCallWindow<T>(options: {
  readonly baseUrl: string;
  /** Any key of the service: the contact figures' progress is the service's, whatever the account. */
  readonly apiKey: string;
  readonly readers: readonly CountReader[];
  readonly run: () => Promise<T>;
}): Promise<CallWindow<T>> {
  const readAll = () => Promise.all(options.readers.map((read) => read()));
  await awaitFiguresCounted(options.baseUrl, options.apiKey, new Date());
  await sleep(STATS_SETTLE_MS);
  const idleFrom = await readAll();
  const idleBegan = performance.now();
  await sleep(IDLE_PROBE_MS);
  const before = await readAll();
  const idleSeconds = (performance.now() - idleBegan) / 1000;
  const idlePerSecond = before.map((counts, i) => rate(idleFrom[i] ?? new Map(), counts, idleSeconds));
  const began = performance.now();
  const result = await options.run();
  const ended = performance.now();
  await awaitFiguresCounted(options.baseUrl, options.apiKey, new Date());
  await sleep(STATS_SETTLE_MS);
  const after = await readAll();
  const settleSeconds = (performance.now() - ended) / 1000;
  const counts = after.map((counts, i) => {
    const net = new Map<string, number>();
    for (const [name, value] of counts) {
      const idle = (idlePerSecond[i]?.get(name) ?? 0) * settleSeconds;
      net.set(name, Math.max(0, value - (before[i]?.get(name) ?? 0) - idle));
    }
    return net;
  });
  return { result, seconds: (ended - began) / 1000, settleSeconds, counts, idlePerSecond };
}

function rate(from: Counts, to: Counts, seconds: number): Counts {
  return new Map([...to].map(([name, value]) => [name, Math.max(0, value - (from.get(name) ?? 0)) / seconds]));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
