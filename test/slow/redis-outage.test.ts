import { setTimeout as sleep } from "node:timers/promises";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { quotaOf } from "../helpers/admin-client.ts";
import {
  type CallClient,
  type CallOutcome,
  countStatuses,
  createCallClient,
  startBody,
  TRANSPORTS,
  type Transport,
} from "../helpers/call-client.ts";
import { endBodyOf, newCaller, startBodyOf } from "../helpers/callers.ts";
import { readMetricsText } from "../helpers/prometheus-text.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";
import { createThrowawayRedis, type ThrowawayRedis } from "../helpers/throwaway-redis.ts";

// Redis goes away for 10 s while two instances sharing it and one PostgreSQL
// database are under steady load, twice: paused (SIGSTOP: its connections stay
// open and nothing is answered, the shape that makes clients hang) and killed
// (connections refused, then a new, empty server). The Redis is this file's
// own; the machine's on 6379 is never touched. What must hold
// (docs/operations.md, "Redis"): no 5xx and no request past its deadline, each
// instance keeping its own windows meanwhile, the shared windows exact again
// within 5 s of Redis answering, and every acknowledged call recorded and
// billed once.

const LOAD_WORKERS = 6;
const OUTAGE_MS = 10_000;
const SHARED_AGAIN_WITHIN_MS = 5_000;
/** The budgets the instances run with, and how late past them an answer counts as a hang. */
const BUDGET_MS = { start: 3_000, end: 5_000 };
const DEADLINE_MARGIN_MS = 2_000;
/** A Free key: base 100 a minute, refused past 110 (docs/limits.md). */
const FREE_BASE = 100;
const FREE_GRACE = 110;
const LOAD_QUOTA = 1_000_000;
const PROBE_QUOTA = 1_000;

type Status = number | "hang" | `error: ${string}`;

interface Answer {
  readonly op: "start" | "end";
  readonly via: Transport;
  readonly sentAt: number;
  readonly ms: number;
  readonly status: Status;
  readonly outcome?: CallOutcome;
}

interface LoadKey {
  readonly accountId: string;
  readonly apiKey: string;
  readonly startedCallIds: string[];
  readonly endedCallIds: string[];
}

interface ProbeKey {
  readonly accountId: string;
  granted: number;
}

/** One outage: when Redis went and came back, and what the probes saw. */
interface Outage {
  readonly shape: string;
  downAt: number;
  upAt: number;
  /** During the outage, 120 starts of one fresh Free key sent to each instance: the statuses each got. */
  perInstance: Status[][];
  /** After it: when the first probe that found the shared window exact sent its first request. */
  exactAt?: number;
  /** How many probes found it not yet shared, and when the last of them sent its last request. */
  failedProbes: number;
  lastFailedAt?: number;
  /** Why each failed probe failed: the first answer that did not count every request before it. */
  probeMisses: string[];
  exactProbe?: CallOutcome[];
}

let database: TestDatabase | undefined;
let redis: ThrowawayRedis | undefined;
const instances: ServerProcess[] = [];
const clients: CallClient[] = [];
const loadKeys: LoadKey[] = [];
const probeKeys: ProbeKey[] = [];
const load: Answer[] = [];
const probes: Answer[] = [];
const outages: Outage[] = [];

beforeAll(async () => {
  if (!process.env.DATABASE_URL) {
    throw new Error(
      "The Redis outage test needs PostgreSQL for its two instances; set DATABASE_URL, " +
        "e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres (it starts its own Redis)",
    );
  }
  database = await createTestDatabase();
  redis = await createThrowawayRedis();
  // Admission control is out of the way, as in two-instances.test.ts: its refusals are 503s about this machine's
  // load, not about Redis. The budgets stay, shorter than the client's deadline.
  const env = {
    ...database.env,
    REDIS_URL: redis.url,
    ADMISSION_INITIAL_LIMIT: "10000",
    ADMISSION_MIN_LIMIT: "10000",
    ADMISSION_MAX_LIMIT: "10000",
    ADMISSION_MAX_EVENT_LOOP_DELAY_MS: "0",
    START_BUDGET_MS: String(BUDGET_MS.start),
    END_BUDGET_MS: String(BUDGET_MS.end),
  };
  instances.push(...(await Promise.all([startServerProcess(env), startServerProcess(env)])));
  clients.push(...instances.map((instance) => createCallClient(instance.url)));
  for (let w = 0; w < LOAD_WORKERS; w++) {
    const { accountId, apiKey } = await createAccountWithKey(instances[0].url, { tier: "scale", quota: LOAD_QUOTA });
    loadKeys.push({ accountId, apiKey, startedCallIds: [], endedCallIds: [] });
  }

  let stopped = false;
  const workers = loadKeys.map((key, w) => driveLoad(key, w, () => stopped));
  try {
    await sleep(2_000);
    await outage(
      "paused (SIGSTOP), then resumed",
      () => redis!.pause(),
      async () => redis!.resume(),
    );
    await sleep(2_000);
    await outage(
      "killed (SIGKILL), then started afresh",
      () => redis!.kill(),
      () => redis!.start(),
    );
    await sleep(2_000);
  } catch (error) {
    const states = instances.map(
      (instance, i) =>
        `instance ${i} ${instance.running() ? "running" : "exited"}:\n${instance.output.slice(-15).join("\n")}`,
    );
    throw new Error(`${String(error)}\n${states.join("\n")}`);
  } finally {
    stopped = true;
    await Promise.all(workers);
  }
}, 300_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all(instances.map((instance) => instance.stop()));
  await redis?.remove();
  await database?.drop();
});

/** Takes Redis away for OUTAGE_MS under load, brings it back, and probes until the shared windows are exact. */
async function outage(shape: string, takeDown: () => unknown, bringUp: () => Promise<void>): Promise<void> {
  const record: Outage = { shape, downAt: 0, upAt: 0, perInstance: [], failedProbes: 0, probeMisses: [] };
  outages.push(record);
  record.downAt = performance.now();
  await takeDown();
  await sleep(1_000);
  record.perInstance = await fillEachInstanceAlone();
  await sleep(Math.max(0, record.downAt + OUTAGE_MS - performance.now()));
  await bringUp();
  record.upAt = performance.now();
  while (performance.now() - record.upAt < 30_000) {
    const probe = await probeSharedWindow();
    if (probe.exact) {
      record.exactAt = probe.startedAt;
      record.exactProbe = probe.outcomes;
      return;
    }
    record.failedProbes += 1;
    record.lastFailedAt = performance.now();
    record.probeMisses.push(`${((probe.startedAt - record.upAt) / 1000).toFixed(2)} s: ${probe.miss}`);
  }
}

/** One start after another on a key of its own, each answered 200 followed by its end; over both instances, REST and gRPC. */
async function driveLoad(key: LoadKey, worker: number, stopped: () => boolean): Promise<void> {
  for (let i = 0; !stopped(); i++) {
    const client = clients[(worker + i) % 2];
    const via = TRANSPORTS[Math.floor((worker + i) / 2) % 2];
    const caller = newCaller(key.apiKey, `w${worker}`);
    const started = await timed(load, "start", via, () => client.start(via, key.apiKey, startBodyOf(caller)));
    if (started.status !== 200) {
      await sleep(50);
      continue;
    }
    key.startedCallIds.push(caller.callId);
    const ended = await timed(load, "end", via, () =>
      client.end(via, key.apiKey, endBodyOf(caller, started.outcome!.body.customer_ref)),
    );
    if (ended.status === 200) key.endedCallIds.push(caller.callId);
    else await sleep(50);
  }
}

/** Sends and waits up to the method's budget plus the margin; past that the request counts as a hang. */
async function timed(
  into: Answer[],
  op: Answer["op"],
  via: Transport,
  send: () => Promise<CallOutcome>,
): Promise<Answer> {
  const sentAt = performance.now();
  const deadline = BUDGET_MS[op] + DEADLINE_MARGIN_MS;
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<"hang">((resolve) => {
    timer = setTimeout(() => resolve("hang"), deadline);
  });
  let answer: Answer;
  try {
    const outcome = await Promise.race([send(), hang]);
    const ms = performance.now() - sentAt;
    answer =
      outcome === "hang"
        ? { op, via, sentAt, ms, status: "hang" }
        : { op, via, sentAt, ms, status: outcome.status, outcome };
  } catch (error) {
    answer = { op, via, sentAt, ms: performance.now() - sentAt, status: `error: ${String(error)}` };
  } finally {
    clearTimeout(timer);
  }
  into.push(answer);
  return answer;
}

async function newProbeKey(): Promise<{ key: ProbeKey; apiKey: string }> {
  const { accountId, apiKey } = await createAccountWithKey(instances[0].url, { tier: "free", quota: PROBE_QUOTA });
  const key = { accountId, granted: 0 };
  probeKeys.push(key);
  return { key, apiKey };
}

/** A fresh Free key's start over REST to one instance; counts what was granted, for the billing check. */
async function probeStart(key: ProbeKey, apiKey: string, instance: number): Promise<Answer> {
  const answer = await timed(probes, "start", "rest", () => clients[instance].start("rest", apiKey, startBody()));
  if (answer.status === 200) key.granted += 1;
  return answer;
}

/** While Redis is away: 120 starts of one fresh Free key to each instance, both at once, 8 at a time to each. */
async function fillEachInstanceAlone(): Promise<Status[][]> {
  const { key, apiKey } = await newProbeKey();
  return Promise.all(
    [0, 1].map(async (instance) => {
      const statuses: Status[] = [];
      let left = FREE_GRACE + 10;
      const lane = async () => {
        while (left-- > 0) statuses.push((await probeStart(key, apiKey, instance)).status);
      };
      await Promise.all(Array.from({ length: 8 }, lane));
      return statuses;
    }),
  );
}

/**
 * A fresh Free key's starts, alternating between the instances: the shared window is exact when each answer counts
 * every request before it, whichever instance took it (X-RateLimit-Remaining = 100 - n), the 111th is refused and
 * the other instance refuses the next. Stops at the first answer that says otherwise (`miss` says which).
 */
async function probeSharedWindow(): Promise<{
  exact: boolean;
  startedAt: number;
  outcomes: CallOutcome[];
  miss?: string;
}> {
  const { key, apiKey } = await newProbeKey();
  const startedAt = performance.now();
  const outcomes: CallOutcome[] = [];
  for (let n = 1; n <= FREE_GRACE + 2; n++) {
    const answer = await probeStart(key, apiKey, n % 2);
    if (answer.outcome === undefined)
      return { exact: false, startedAt, outcomes, miss: `request ${n}: ${answer.status}` };
    outcomes.push(answer.outcome);
    const expected = n <= FREE_GRACE ? 200 : 429;
    const remaining = String(Math.max(0, FREE_BASE - Math.min(n, FREE_GRACE)));
    const got = answer.outcome.headers["x-ratelimit-remaining"];
    if (answer.status !== expected || got !== remaining) {
      const miss = `request ${n} to instance ${n % 2}: ${answer.status}, remaining ${got} (shared: ${expected}, ${remaining})`;
      return { exact: false, startedAt, outcomes, miss };
    }
  }
  return { exact: true, startedAt, outcomes };
}

function countOf(statuses: readonly Status[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of statuses) counts[String(status)] = (counts[String(status)] ?? 0) + 1;
  return counts;
}

const tally = (answers: readonly Answer[]) => countOf(answers.map((answer) => answer.status));

const during = (answers: readonly Answer[], o: Outage) =>
  answers.filter((a) => a.sentAt >= o.downAt && a.sentAt < o.upAt);
const slowest = (answers: readonly Answer[]) => Math.round(Math.max(0, ...answers.map((a) => a.ms)));

const pick = ({ time, msg, reason, outageMs }: Record<string, unknown>) => ({ time, msg, reason, outageMs });

/** What the instances logged as errors: a failure says why here. */
function serverErrors(): string {
  const lines = instances.flatMap((instance) => instance.output.filter((line) => /"level":(50|60)/.test(line)));
  return lines.length === 0 ? "no error logged by either instance" : lines.slice(0, 20).join("\n");
}

describe("Redis stopped for 10 s under load from two instances, then back", () => {
  test("no request gets a 5xx or goes unanswered: load 200, probes 200 or 429", async ({ annotate }) => {
    for (const o of outages) {
      await annotate(
        `Redis ${o.shape}: load during the ${OUTAGE_MS / 1000} s ${JSON.stringify(tally(during(load, o)))}, ` +
          `slowest ${slowest(during(load, o))} ms`,
      );
    }
    await annotate(`all load: ${JSON.stringify(tally(load))}; all probes: ${JSON.stringify(tally(probes))}`);
    expect(tally(load), serverErrors()).toEqual({ 200: load.length });
    expect(Object.keys(tally(probes)).filter((status) => status !== "200" && status !== "429")).toEqual([]);
    for (const o of outages) expect(during(load, o).length).toBeGreaterThanOrEqual(20);
  });

  test("no request waits until its deadline (its budget) for a Redis that does not answer", async ({ annotate }) => {
    const all = [...load, ...probes];
    await annotate(
      `slowest answer ${slowest(all)} ms (budgets: start ${BUDGET_MS.start} ms, end ${BUDGET_MS.end} ms, ` +
        `+ ${DEADLINE_MARGIN_MS} ms before a request counts as hung); ` +
        outages.map((o) => `while Redis was ${o.shape}: ${slowest(during(all, o))} ms`).join("; "),
    );
    // An answer at the budget is a request that waited until the service gave up on it.
    const late = all.filter((a) => a.status === "hang" || a.ms >= BUDGET_MS[a.op]);
    expect(late.map(({ op, via, status, ms }) => ({ op, via, status, ms: Math.round(ms) }))).toEqual([]);
  });

  test("while Redis is away each instance keeps the window itself: 120 starts of one Free key to each, 110 × 200 then 10 × 429 on both", async ({
    annotate,
  }) => {
    for (const o of outages) {
      const counts = o.perInstance.map(countOf);
      await annotate(
        `Redis ${o.shape}: instance A ${JSON.stringify(counts[0])}, instance B ${JSON.stringify(counts[1])}`,
      );
      expect(counts).toEqual([
        { 200: FREE_GRACE, 429: 10 },
        { 200: FREE_GRACE, 429: 10 },
      ]);
    }
  });

  test(`the shared window is exact again within ${SHARED_AGAIN_WITHIN_MS / 1000} s of Redis answering: 110 × 200 over both instances, then 429 from each`, async ({
    annotate,
  }) => {
    for (const o of outages) {
      expect(o.exactAt, `no exact shared window within 30 s after Redis was ${o.shape}`).toBeDefined();
      const after = o.exactAt! - o.upAt;
      const notYet =
        o.lastFailedAt === undefined ? "" : `, the last at ${((o.lastFailedAt - o.upAt) / 1000).toFixed(2)} s`;
      await annotate(
        `Redis ${o.shape} after ${((o.upAt - o.downAt) / 1000).toFixed(1)} s: shared window exact from ` +
          `${(after / 1000).toFixed(2)} s after it answered (${o.failedProbes} probe(s) found it not yet shared${notYet})`,
      );
      if (o.probeMisses.length > 0) await annotate(`probes that found it not yet shared: ${o.probeMisses.join("; ")}`);
      expect(after).toBeLessThanOrEqual(SHARED_AGAIN_WITHIN_MS);
      const outcomes = o.exactProbe!;
      expect(countStatuses(outcomes)).toEqual({ 200: FREE_GRACE, 429: 2 });
      for (const refused of outcomes.slice(FREE_GRACE)) {
        expect(refused.body).toEqual({
          error: "Too Many Requests",
          message: expect.any(String),
          retryAfter: expect.any(Number),
          currentUsage: FREE_GRACE,
          limit: FREE_BASE,
          resetAt: expect.any(String),
        });
        expect(refused.headers).toMatchObject({
          "x-ratelimit-limit": String(FREE_BASE),
          "x-ratelimit-remaining": "0",
          "retry-after": String(refused.body.retryAfter),
        });
        expect(Number(refused.headers["x-ratelimit-reset"])).toBeGreaterThan(Date.now() - 60_000);
      }
    }
  });

  test("every acknowledged start and end is in the database once and billed once; nothing refused is billed", async ({
    annotate,
  }) => {
    const db = new Kysely<any>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database!.env.DATABASE_URL }) }),
    });
    try {
      let starts = 0;
      let ends = 0;
      for (const key of loadKeys) {
        const rows = await db
          .selectFrom("calls")
          .select(["call_id", "call_end"])
          .where("account_id", "=", key.accountId)
          .execute();
        expect(rows.map((row) => row.call_id).sort()).toEqual([...key.startedCallIds].sort());
        expect(
          rows
            .filter((row) => row.call_end !== null)
            .map((row) => row.call_id)
            .sort(),
        ).toEqual([...key.endedCallIds].sort());
        const billed = LOAD_QUOTA - (await quotaOf(instances[1].url, key.accountId));
        expect(billed).toBe(key.startedCallIds.length + key.endedCallIds.length);
        starts += key.startedCallIds.length;
        ends += key.endedCallIds.length;
      }
      for (const key of probeKeys) {
        expect(PROBE_QUOTA - (await quotaOf(instances[0].url, key.accountId))).toBe(key.granted);
      }
      await annotate(
        `${starts} starts and ${ends} ends acknowledged under load, each one row and one credit; ` +
          `${probeKeys.length} probe keys billed only their 200s`,
      );
    } finally {
      await db.destroy();
    }
  });

  test("metrics: each instance counted the outages and uses the shared windows again", async ({ annotate }) => {
    const counted: number[] = [];
    for (const instance of instances) {
      const line = instance.output.find((l) => l.includes('"msg":"metrics listening"'));
      expect(line, "the instance logged no metrics URL").toBeDefined();
      const scrape = async () =>
        readMetricsText(await (await fetch(new URL("/metrics", JSON.parse(line!).url))).text());
      // A Redis reply that misses the command timeout on this busy machine (a stalled event loop) is an outage of
      // its own, so the count may exceed the two made here, and the windows may be the instance's own for a moment.
      let metrics = await scrape();
      for (
        let waited = 0;
        metrics.value("rate_limit_windows_shared") !== 1 && waited < SHARED_AGAIN_WITHIN_MS;
        waited += 250
      ) {
        await sleep(250);
        metrics = await scrape();
      }
      expect(metrics.value("rate_limit_windows_shared")).toBe(1);
      expect(metrics.value("rate_limit_redis_outages_total")).toBeGreaterThanOrEqual(outages.length);
      counted.push(metrics.value("rate_limit_redis_outages_total"));
    }
    await annotate(`rate_limit_redis_outages_total: ${counted.join(" and ")} (${outages.length} made by the test)`);
    for (const [i, instance] of instances.entries()) {
      const lines = instance.output.filter((l) => l.includes("rate-limit windows"));
      await annotate(`instance ${i}: ${lines.map((l) => JSON.stringify(pick(JSON.parse(l)))).join(" ")}`);
    }
  });
});
