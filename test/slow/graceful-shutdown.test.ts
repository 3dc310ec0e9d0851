import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { status as grpcStatus } from "@grpc/grpc-js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type CallClient,
  type CallOutcome,
  createCallClient,
  startBody,
  TRANSPORTS,
  type Transport,
} from "../helpers/call-client.ts";
import { type Caller, endBodyOf, endHeadersOf, newCaller, startBodyOf, unreadableCallers } from "../helpers/callers.ts";
import { type HeldRequest, holdRequest } from "../helpers/held-request.ts";
import { createAccountWithKey, request } from "../helpers/rest-client.ts";
import { type ProcessExit, type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

// SIGTERM and SIGINT stop the service without losing an answer: requests in
// flight finish, new connections are refused, the process exits 0, and every
// write a client saw acknowledged is there when the next process opens the
// same database. Proved on PostgreSQL (one instance, then a rolling restart of
// two) and on the embedded database, whose files must also survive.

const SHUTDOWN_GRACE_MS = 8_000;

const viaOf = (i: number): Transport => TRANSPORTS[i % 2];

/** The outcome of a new TCP connection to the server's port: "connected" or the error code. */
function tryConnect(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** Milliseconds until a new connection is refused, or undefined if it was still accepted after `withinMs`. */
async function msUntilRefused(url: string, since: number, withinMs: number): Promise<number | undefined> {
  while (performance.now() - since < withinMs) {
    if ((await tryConnect(url)) === "ECONNREFUSED") return performance.now() - since;
    await sleep(10);
  }
  return undefined;
}

/** A promise that can be asked whether it has settled yet. */
function tracked<T>(promise: Promise<T>): { readonly promise: Promise<T>; settled(): boolean } {
  let done = false;
  const settledPromise = promise.finally(() => {
    done = true;
  });
  settledPromise.catch(() => {});
  return { promise: settledPromise, settled: () => done };
}

/** What a failed request reports instead of an answer: the socket error's code when there is one. */
function transportError(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ?? (error as NodeJS.ErrnoException).code ?? String(error);
}

async function startedCallers(client: CallClient, apiKey: string, count: number, label: string) {
  const started: { caller: Caller; customerRef: string }[] = [];
  for (let i = 0; i < count; i++) {
    const caller = newCaller(apiKey, label);
    const res = await client.start(viaOf(i), apiKey, startBodyOf(caller));
    if (res.status !== 200) throw new Error(`start: ${res.status} ${JSON.stringify(res.body)}`);
    started.push({ caller, customerRef: res.body.customer_ref });
  }
  return started;
}

describe("SIGTERM with requests in flight, on PostgreSQL", () => {
  const STARTS_IN_FLIGHT = 4;
  const ENDS_IN_FLIGHT = 4;
  const HOLD_AFTER_SIGTERM_MS = 1_000;

  let database: TestDatabase | undefined;
  let lock: pg.Client | undefined;
  const processes: ServerProcess[] = [];
  const clients: CallClient[] = [];

  const seen = {
    waitingAtSigterm: 0,
    stillWaitingAtRelease: 0,
    refusedAfterMs: undefined as number | undefined,
    newRestRequest: "",
    newGrpcCall: undefined as CallOutcome | undefined,
    /** The status each request in flight was answered with, or its transport error. */
    answers: [] as (number | string)[],
    exit: undefined as ProcessExit | undefined,
    exitAfterMs: 0,
    releasedAfterMs: 0,
    unreadableEnds: [] as unknown[],
    startsNotCommitted: [] as unknown[],
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = {
      ...database.env,
      REDIS_URL: "",
      SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS),
      // The requests wait for a row lock on purpose; nothing else may give up first.
      START_BUDGET_MS: "30000",
      END_BUDGET_MS: "30000",
      DB_STATEMENT_TIMEOUT_MS: "30000",
      // Every request in flight holds a connection while it waits for the lock.
      DB_POOL_SIZE: String(STARTS_IN_FLIGHT + ENDS_IN_FLIGHT),
    };
    const server = await startServerProcess(env);
    processes.push(server);
    const calls = createCallClient(server.url);
    clients.push(calls);
    const { accountId, apiKey } = await createAccountWithKey(server.url, { tier: "scale" });
    const toEnd = await startedCallers(calls, apiKey, ENDS_IN_FLIGHT, "ending");
    const toStart = Array.from({ length: STARTS_IN_FLIGHT }, () => newCaller(apiKey, "starting"));

    // Every start and end takes a credit with an UPDATE of one of the account's credit slots: holding
    // every slot's row lock from another session keeps them waiting in the middle of their transaction.
    lock = new pg.Client({ connectionString: database.env.DATABASE_URL });
    await lock.connect();
    await lock.query("begin");
    await lock.query("select 1 from quota_slots where account_id = $1 for update", [accountId]);
    const inFlight = [
      ...toStart.map((caller, i) => tracked(calls.start(viaOf(i), apiKey, startBodyOf(caller)))),
      ...toEnd.map(({ caller, customerRef }, i) =>
        tracked(calls.end(viaOf(i), apiKey, endBodyOf(caller, customerRef))),
      ),
    ];
    seen.waitingAtSigterm = await waitForLockWaiters(database.env.DATABASE_URL, inFlight.length);

    const signalledAt = performance.now();
    server.kill("SIGTERM");
    seen.refusedAfterMs = await msUntilRefused(server.url, signalledAt, 3_000);
    seen.newRestRequest = await request(server.url, "GET", "/v1/health").then(
      (res) => `answered ${res.status}`,
      transportError,
    );
    const fresh = createCallClient(server.url);
    seen.newGrpcCall = await fresh.start("grpc", apiKey, startBody());
    fresh.close();

    await sleep(Math.max(0, HOLD_AFTER_SIGTERM_MS - (performance.now() - signalledAt)));
    seen.stillWaitingAtRelease = inFlight.filter((request) => !request.settled()).length;
    await lock.query("rollback");
    seen.releasedAfterMs = performance.now() - signalledAt;
    seen.answers = await Promise.all(
      inFlight.map((request) => request.promise.then((outcome) => outcome.status, transportError)),
    );
    seen.exit = await server.exited;
    seen.exitAfterMs = performance.now() - signalledAt;

    // The next process on the same database reads back what was acknowledged.
    const next = await startServerProcess(env);
    processes.push(next);
    const reader = createCallClient(next.url);
    clients.push(reader);
    seen.unreadableEnds = await unreadableCallers(
      reader,
      toEnd.map(({ caller }) => caller),
    );
    for (const [i, caller] of toStart.entries()) {
      // A call_id that is taken was committed.
      const again = await reader.start(viaOf(i), apiKey, startBodyOf(caller));
      if (again.status !== 409) seen.startsNotCommitted.push({ callId: caller.callId, status: again.status });
    }
  });

  afterAll(async () => {
    await lock?.end().catch(() => {});
    for (const client of clients) client.close();
    await Promise.all(processes.map((process) => process.stop()));
    await database?.drop();
  });

  test("the requests were in flight: waiting inside their transactions when SIGTERM came, and after", () => {
    expect(seen.waitingAtSigterm).toBe(STARTS_IN_FLIGHT + ENDS_IN_FLIGHT);
    expect(seen.stillWaitingAtRelease).toBe(STARTS_IN_FLIGHT + ENDS_IN_FLIGHT);
  });

  test("every request in flight at SIGTERM completes with 200", async ({ annotate }) => {
    expect(seen.answers).toEqual(Array(STARTS_IN_FLIGHT + ENDS_IN_FLIGHT).fill(200));
    await annotate(
      `${seen.answers.length} requests in flight at SIGTERM (${STARTS_IN_FLIGHT} starts, ${ENDS_IN_FLIGHT} ends, ` +
        `REST and gRPC), released ${Math.round(seen.releasedAfterMs)} ms after it: all 200`,
    );
  });

  test("after SIGTERM new connections are refused: TCP, REST and gRPC", async ({ annotate }) => {
    expect(seen.refusedAfterMs).toBeDefined();
    expect(seen.newRestRequest).toBe("ECONNREFUSED");
    expect(seen.newGrpcCall?.grpcError?.code).toBe(grpcStatus.UNAVAILABLE);
    await annotate(`new connections refused ${Math.round(seen.refusedAfterMs!)} ms after SIGTERM`);
  });

  test(`the process exits 0 within SHUTDOWN_GRACE_MS (${SHUTDOWN_GRACE_MS} ms)`, async ({ annotate }) => {
    expect(seen.exit).toEqual({ code: 0, signal: null });
    expect(seen.exitAfterMs).toBeLessThan(SHUTDOWN_GRACE_MS);
    await annotate(
      `exit code 0, ${Math.round(seen.exitAfterMs)} ms after SIGTERM ` +
        `(${Math.round(seen.exitAfterMs - seen.releasedAfterMs)} ms after the requests could finish)`,
    );
  });

  test("what was answered 200 is committed: the ends are read back, the call_ids are taken", () => {
    expect(seen.unreadableEnds).toEqual([]);
    expect(seen.startsNotCommitted).toEqual([]);
  });
});

/**
 * Waits (up to 15 s) until `count` sessions wait for a lock in this database; returns how many do.
 * It looks from a session of its own: inside a transaction, pg_stat_activity would not change.
 */
async function waitForLockWaiters(databaseUrl: string, count: number): Promise<number> {
  const observer = new pg.Client({ connectionString: databaseUrl });
  await observer.connect();
  try {
    let waiting = 0;
    for (const startedAt = performance.now(); performance.now() - startedAt < 15_000; await sleep(20)) {
      const { rows } = await observer.query(
        "select count(*)::int as waiting from pg_stat_activity " +
          "where datname = current_database() and wait_event_type = 'Lock'",
      );
      waiting = rows[0].waiting;
      if (waiting >= count) break;
    }
    return waiting;
  } finally {
    await observer.end();
  }
}

describe("a rolling restart of two instances under load", () => {
  const WORKERS = 4;
  const MAX_ATTEMPTS = 20;
  const RETRY_PAUSE_MS = 50;
  const MAX_CALLERS_PER_WORKER = 5_000;

  interface Target {
    readonly server: ServerProcess;
    readonly client: CallClient;
  }

  let database: TestDatabase | undefined;
  const processes: ServerProcess[] = [];
  const clients: CallClient[] = [];
  /** Where the load goes: the two addresses a load balancer would know. */
  const targets: Target[] = [];
  const pendingByPid = new Map<number, number>();

  const seen = {
    acknowledged: [] as Caller[],
    abandoned: [] as string[],
    /** Starts refused 409 when repeated after no answer: committed, but the answer was lost. */
    lostStartAnswers: [] as string[],
    unexpected: [] as unknown[],
    retriedFor: {} as Record<string, number>,
    requests: 0,
    shutdowns: [] as { inFlight: number; exit: ProcessExit; exitAfterMs: number }[],
    unreadable: [] as unknown[],
  };

  beforeAll(async () => {
    const missing = ["DATABASE_URL", "REDIS_URL"].filter((name) => !process.env[name]);
    if (missing.length > 0) throw new Error(`A rolling restart needs a shared PostgreSQL and Redis; set ${missing}`);
    database = await createTestDatabase();
    const env = { ...database.env, REDIS_URL: process.env.REDIS_URL!, SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS) };
    const launch = async (): Promise<Target> => {
      const server = await startServerProcess(env);
      processes.push(server);
      const client = createCallClient(server.url);
      clients.push(client);
      return { server, client };
    };
    targets.push(...(await Promise.all([launch(), launch()])));
    const keys = await Promise.all(
      Array.from({ length: WORKERS }, () => createAccountWithKey(targets[0].server.url, { tier: "scale" })),
    );

    let stopped = false;
    const workers = keys.map(({ apiKey }, w) => driveCallers(apiKey, w, () => stopped));
    try {
      await sleep(1_500);
      for (const slot of [0, 1]) {
        const { server } = targets[slot];
        const signalledAt = performance.now();
        const inFlight = pendingByPid.get(server.pid) ?? 0;
        server.kill("SIGTERM");
        const exit = await server.exited;
        seen.shutdowns.push({ inFlight, exit, exitAfterMs: performance.now() - signalledAt });
        targets[slot] = await launch();
        await sleep(1_000);
      }
    } finally {
      stopped = true;
      await Promise.all(workers);
    }
    seen.unreadable = await unreadableCallers(targets[0].client, seen.acknowledged);
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await Promise.all(processes.map((process) => process.stop()));
    await database?.drop();
  });

  /** One caller after another: start, then end (with an Idempotency-Key, so it may be repeated). */
  async function driveCallers(apiKey: string, worker: number, stopped: () => boolean) {
    for (let i = 0; i < MAX_CALLERS_PER_WORKER && !stopped(); i++) {
      const caller = newCaller(apiKey, `w${worker}`);
      const via = viaOf(worker + i);
      const first = (worker + i) % 2;
      const started = await withRetries(first, (client) => client.start(via, apiKey, startBodyOf(caller)));
      if (started?.attempts !== undefined && started.attempts > 1 && started.outcome.status === 409) {
        seen.lostStartAnswers.push(caller.callId);
        continue;
      }
      if (started?.outcome.status !== 200) {
        if (started === undefined) seen.abandoned.push(`start ${caller.callId}`);
        else seen.unexpected.push({ op: "start", status: started.outcome.status, body: started.outcome.body });
        continue;
      }
      const end = endBodyOf(caller, started.outcome.body.customer_ref);
      const ended = await withRetries(first, (client) => client.end(via, apiKey, end, endHeadersOf(caller)));
      if (ended?.outcome.status === 200) seen.acknowledged.push(caller);
      else if (ended === undefined) seen.abandoned.push(`end ${caller.callId}`);
      else seen.unexpected.push({ op: "end", status: ended.outcome.status, body: ended.outcome.body });
    }
  }

  /**
   * Sends to one instance, and on a connection error or a 503 (gRPC UNAVAILABLE)
   * to the other, as a client behind a load balancer would.
   */
  async function withRetries(
    first: number,
    send: (client: CallClient) => Promise<CallOutcome>,
  ): Promise<{ outcome: CallOutcome; attempts: number } | undefined> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const { server, client } = targets[(first + attempt - 1) % 2];
      seen.requests++;
      pendingByPid.set(server.pid, (pendingByPid.get(server.pid) ?? 0) + 1);
      let outcome: CallOutcome | undefined;
      let failure: string | undefined;
      try {
        outcome = await send(client);
      } catch (error) {
        failure = transportError(error);
      } finally {
        pendingByPid.set(server.pid, pendingByPid.get(server.pid)! - 1);
      }
      if (outcome !== undefined && outcome.status !== 503) return { outcome, attempts: attempt };
      const reason = failure ?? `${outcome?.grpcError ? "gRPC" : "REST"} 503: ${outcome?.body?.message?.split(".")[0]}`;
      seen.retriedFor[reason] = (seen.retriedFor[reason] ?? 0) + 1;
      await sleep(RETRY_PAUSE_MS);
    }
    return undefined;
  }

  test("each instance exits 0 on SIGTERM within SHUTDOWN_GRACE_MS", async ({ annotate }) => {
    expect(seen.shutdowns.map((shutdown) => shutdown.exit)).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
    for (const { exitAfterMs } of seen.shutdowns) expect(exitAfterMs).toBeLessThan(SHUTDOWN_GRACE_MS);
    await annotate(
      seen.shutdowns
        .map(
          (s, i) =>
            `instance ${i + 1}: ${s.inFlight} in flight at SIGTERM, exit 0 after ${Math.round(s.exitAfterMs)} ms`,
        )
        .join("; "),
    );
  });

  test("with retries against the other instance, every caller's start and end is answered 200", async ({
    annotate,
  }) => {
    expect(seen.unexpected).toEqual([]);
    expect(seen.abandoned).toEqual([]);
    expect(seen.acknowledged.length).toBeGreaterThanOrEqual(20);
    await annotate(`${seen.requests} requests, retried on the other instance: ${JSON.stringify(seen.retriedFor)}`);
  });

  test("no answer is lost: a start repeated after a failed attempt never finds its call_id taken", () => {
    expect(seen.lostStartAnswers).toEqual([]);
  });

  test("every end that got a 200 is read back by a later start", async ({ annotate }) => {
    expect(seen.unreadable).toEqual([]);
    await annotate(`${seen.acknowledged.length} ends answered 200 during the rolling restart, every one read back`);
  });
});

describe("the embedded database survives SIGTERM, SIGINT and SIGKILL", () => {
  const SEQUENTIAL_CALLERS = 10;
  const HELD_ENDS = 2;
  const BURST_CALLERS = 6;

  interface Round {
    readonly signal: NodeJS.Signals;
    /** The held ends' answers: the server had certainly taken them (it asked for their body) at the signal. */
    heldAnswers: (number | string)[];
    /** Callers of the burst still waiting for an answer when the signal came. */
    burstInFlight: number;
    /** Every answer the burst got (status or transport error). */
    burstAnswers: (number | string)[];
    acknowledged: number;
    exit?: ProcessExit;
    exitAfterMs: number;
    reopenedAfterMs: number;
    unreadable: unknown[];
    verified: number;
  }

  let dataDir: string | undefined;
  let current: ServerProcess | undefined;
  const rounds: Round[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cc-data-"));
    // No DATABASE_URL: the embedded database in DATA_DIR; no Redis either, as on one box.
    const env = { DATABASE_URL: "", REDIS_URL: "", DATA_DIR: dataDir, SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS) };
    current = await startServerProcess(env);
    const { apiKey } = await createAccountWithKey(current.url, { tier: "scale" });
    const acknowledged: Caller[] = [];

    for (const signal of ["SIGTERM", "SIGINT", "SIGKILL"] as const) {
      const round: Round = {
        signal,
        heldAnswers: [],
        burstInFlight: 0,
        burstAnswers: [],
        acknowledged: 0,
        exitAfterMs: 0,
        reopenedAfterMs: 0,
        unreadable: [],
        verified: 0,
      };
      rounds.push(round);
      const server = current;
      const calls = createCallClient(server.url);
      try {
        const before = acknowledged.length;
        for (let i = 0; i < SEQUENTIAL_CALLERS; i++) {
          const caller = newCaller(apiKey, signal);
          const started = await calls.start(viaOf(i), apiKey, startBodyOf(caller));
          const ended = await calls.end(viaOf(i), apiKey, endBodyOf(caller, started.body.customer_ref));
          if (ended.status === 200) acknowledged.push(caller);
        }

        // In flight at the signal: ends whose body the server is still waiting for, and a burst of callers.
        const held: { caller: Caller; request: HeldRequest }[] = [];
        for (const { caller, customerRef } of await startedCallers(calls, apiKey, HELD_ENDS, `${signal}-held`)) {
          held.push({
            caller,
            request: await holdRequest(server.url, "/v1/calls/end", apiKey, endBodyOf(caller, customerRef)),
          });
        }
        let firstAnswer!: () => void;
        const answered = new Promise<void>((resolve) => {
          firstAnswer = resolve;
        });
        const burst = Array.from({ length: BURST_CALLERS }, (_, i) => {
          const caller = newCaller(apiKey, `${signal}-burst`);
          return tracked(
            (async () => {
              const started = await calls.start(viaOf(i), apiKey, startBodyOf(caller));
              firstAnswer();
              round.burstAnswers.push(started.status);
              if (started.status !== 200) return;
              const ended = await calls.end(viaOf(i), apiKey, endBodyOf(caller, started.body.customer_ref));
              round.burstAnswers.push(ended.status);
              if (ended.status === 200) acknowledged.push(caller);
            })().catch((error) => void round.burstAnswers.push(transportError(error))),
          );
        });
        // Once the embedded database has answered one of the burst, the others are queued behind it.
        await Promise.race([answered, sleep(5_000)]);
        const signalledAt = performance.now();
        round.burstInFlight = burst.filter((request) => !request.settled()).length;
        server.kill(signal);
        await sleep(300);
        round.heldAnswers = await Promise.all(
          held.map(({ request }) => request.release().then((res) => res.status, transportError)),
        );
        for (const [i, answer] of round.heldAnswers.entries()) if (answer === 200) acknowledged.push(held[i].caller);
        await Promise.all(burst.map((request) => request.promise));
        round.exit = await server.exited;
        round.exitAfterMs = performance.now() - signalledAt;
        round.acknowledged = acknowledged.length - before;
      } finally {
        calls.close();
      }

      const reopenedAt = performance.now();
      current = await startServerProcess(env);
      round.reopenedAfterMs = performance.now() - reopenedAt;
      const reader = createCallClient(current.url);
      try {
        round.unreadable = await unreadableCallers(reader, acknowledged);
        round.verified = acknowledged.length;
      } finally {
        reader.close();
      }
    }
  });

  afterAll(async () => {
    await current?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  const roundOf = (signal: NodeJS.Signals) => {
    const round = rounds.find((r) => r.signal === signal);
    if (round === undefined) throw new Error(`the ${signal} round did not run`);
    return round;
  };

  test.for(["SIGTERM", "SIGINT"] as const)(
    "%s with requests in flight: exit 0, and the next process reads back every acknowledged write",
    async (signal, { annotate }) => {
      const round = roundOf(signal);
      expect(round.exit).toEqual({ code: 0, signal: null });
      expect(round.exitAfterMs).toBeLessThan(SHUTDOWN_GRACE_MS);
      expect(round.heldAnswers).toEqual(Array(HELD_ENDS).fill(200));
      // The rest of the burst may be refused a connection or shed with 503, never answered 500.
      expect(
        round.burstAnswers.filter((answer) => typeof answer === "number" && answer !== 200 && answer !== 503),
      ).toEqual([]);
      expect(round.acknowledged).toBeGreaterThanOrEqual(SEQUENTIAL_CALLERS + HELD_ENDS);
      expect(round.unreadable).toEqual([]);
      await annotate(
        `${signal}: ${HELD_ENDS} held ends and ${round.burstInFlight} callers in flight, exit 0 after ${Math.round(round.exitAfterMs)} ms; ` +
          `burst answers ${JSON.stringify(round.burstAnswers)}; ${round.acknowledged} ends acknowledged in the round; reopened in ${Math.round(round.reopenedAfterMs)} ms, ` +
          `${round.verified} acknowledged writes (all rounds so far) read back`,
      );
    },
  );

  test("SIGKILL: the data directory reopens and every acknowledged write is read back", async ({ annotate }) => {
    const round = roundOf("SIGKILL");
    expect(round.exit).toEqual({ code: null, signal: "SIGKILL" });
    expect(round.unreadable).toEqual([]);
    await annotate(
      `SIGKILL with ${HELD_ENDS} held ends and ${round.burstInFlight} callers in flight; reopened in ${Math.round(round.reopenedAfterMs)} ms, ` +
        `${round.verified} acknowledged writes read back`,
    );
  });
});
