import { setTimeout as sleep } from "node:timers/promises";
import { status as grpcStatus } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CallClient, createCallClient } from "../helpers/call-client.ts";
import { type Answer, startCallLoad, statusOf, tally } from "../helpers/call-load.ts";
import { type Caller, unreadableCallers } from "../helpers/callers.ts";
import { type ReadinessWatch, watchReadiness } from "../helpers/readiness-watch.ts";
import { createAccountWithKey, type JsonResponse, request } from "../helpers/rest-client.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createThrowawayPostgres, type ThrowawayPostgres } from "../helpers/throwaway-postgres.ts";

// The service's PostgreSQL goes away and comes back while callers keep
// calling: a fast restart, a stop with two seconds of outage, and a crash
// (immediate stop, recovered from the WAL). The cluster is the test's own,
// so the machine's server is not disturbed. When the server is back is what a
// client polling pg_isready sees: the first "accepting connections" after a
// refusal. From that moment on every request must get a 200.

const WORKERS = 8;
const OUTAGE_MS = 2_000;
const ANSWER_WITHIN_MS = 3_000;
const RECOVER_WITHIN_MS = 5_000;

/** A health check's answer, or why there was none. */
type Probe = { readonly res: JsonResponse } | { readonly error: string };

let cluster: ThrowawayPostgres | undefined;
let server: ServerProcess | undefined;
let calls: CallClient | undefined;
let readiness: ReadinessWatch | undefined;

/** The load's answers and acknowledged callers, once it has stopped. */
let answers: readonly Answer[] = [];
let acknowledged: readonly Caller[] = [];
const healthDuringOutage: Probe[] = [];
/** performance.now() marks of the database's life; backAfter as pg_isready saw it. */
const marks = { stopped: 0, startBegun: 0, backAfter: {} as Record<string, number>, goingDown: [] as number[] };

beforeAll(async () => {
  cluster = await createThrowawayPostgres();
  readiness = await watchReadiness(cluster.url);
  server = await startServerProcess({
    DATABASE_URL: cluster.url,
    DB_STATEMENT_TIMEOUT_MS: "1000",
    // The rate-limit windows in memory: this file is about PostgreSQL only.
    REDIS_URL: "",
  });
  calls = createCallClient(server.url);
  const keys = await Promise.all(
    Array.from({ length: WORKERS }, () => createAccountWithKey(server!.url, { tier: "scale" })),
  );

  const load = startCallLoad(
    calls,
    keys.map(({ apiKey }) => apiKey),
  );
  try {
    await sleep(1_000);

    marks.goingDown.push(performance.now());
    await cluster.restart("fast");
    marks.backAfter["restart -m fast"] = await backSince(marks.goingDown.at(-1)!);
    await sleep(1_000);

    marks.goingDown.push(performance.now());
    await cluster.stop("fast");
    marks.stopped = performance.now();
    while (performance.now() - marks.stopped < OUTAGE_MS) {
      healthDuringOutage.push(
        await request(server.url, "GET", "/v1/health").then(
          (res) => ({ res }),
          (error) => ({ error: String(error) }),
        ),
      );
      await sleep(250);
    }
    marks.startBegun = performance.now();
    await cluster.start();
    marks.backAfter["stop, 2 s, start"] = await backSince(marks.goingDown.at(-1)!);
    await sleep(1_000);

    marks.goingDown.push(performance.now());
    await cluster.restart("immediate");
    marks.backAfter["restart -m immediate (a crash)"] = await backSince(marks.goingDown.at(-1)!);
    await sleep(1_000);
  } finally {
    await load.stop();
    ({ answers, acknowledged } = load);
    await readiness.stop();
  }
});

/** When pg_isready first accepted again after `from`; pg_ctl has returned, so its poll is at most one round behind. */
async function backSince(from: number): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const back = readiness!.backAfter(from);
    if (back !== undefined) return back;
    await sleep(20);
  }
  throw new Error("pg_isready never saw the server go down and come back");
}

afterAll(async () => {
  await readiness?.stop();
  calls?.close();
  await server?.stop();
  await cluster?.remove();
});

const duringOutage = () => answers.filter((a) => a.sentAt >= marks.stopped && a.answeredAt <= marks.startBegun);

describe("while PostgreSQL restarts, stops and crashes under load", () => {
  test("every request is answered 200 or 503 (gRPC UNAVAILABLE), never 500 and never left unanswered", async ({
    annotate,
  }) => {
    const unexpected = answers.filter((a) => a.outcome?.status !== 200 && a.outcome?.status !== 503);
    expect(unexpected.map((a) => ({ op: a.op, via: a.via, status: statusOf(a), body: a.outcome?.body }))).toEqual([]);
    expect(answers.filter((a) => a.outcome?.status === 503).length).toBeGreaterThan(0);
    await annotate(`${answers.length} requests in all: ${JSON.stringify(tally(answers))}`);
  });

  test("a 503 is the contract's: Retry-After: 1, REST body {error: 'Service Unavailable', message}, gRPC UNAVAILABLE", () => {
    const refused = answers.filter((a) => a.outcome?.status === 503).map((a) => ({ via: a.via, ...a.outcome! }));
    for (const outcome of refused) {
      expect(outcome.headers["retry-after"]).toBe("1");
      if (outcome.via === "rest") {
        expect(outcome.body).toEqual({ error: "Service Unavailable", message: expect.any(String) });
      } else {
        expect(outcome.grpcError?.code).toBe(grpcStatus.UNAVAILABLE);
      }
    }
  });

  test("while the database is stopped, every request gets 503", async ({ annotate }) => {
    const outage = duringOutage();
    expect(outage.length).toBeGreaterThanOrEqual(20);
    expect(tally(outage)).toEqual({ 503: outage.length });
    await annotate(`${outage.length} requests sent and answered during the ${OUTAGE_MS} ms outage: all 503`);
  });

  test(`every request is answered within ${ANSWER_WITHIN_MS} ms`, async ({ annotate }) => {
    const slowest = Math.max(...answers.map((a) => a.answeredAt - a.sentAt));
    const slowestInOutage = Math.max(...duringOutage().map((a) => a.answeredAt - a.sentAt));
    expect(slowest).toBeLessThan(ANSWER_WITHIN_MS);
    await annotate(
      `slowest answer ${Math.round(slowest)} ms overall, ${Math.round(slowestInOutage)} ms during the outage`,
    );
  });

  test("health reports 503, database disconnected, Retry-After: 5 while the database is stopped", async () => {
    expect(healthDuringOutage.length).toBeGreaterThanOrEqual(3);
    for (const probe of healthDuringOutage) {
      if (!("res" in probe)) throw new Error(`health was not answered: ${probe.error}`);
      expect(probe.res.status).toBe(503);
      expect(probe.res.body).toMatchObject({ status: "unhealthy", database: "disconnected" });
      expect(probe.res.headers.get("retry-after")).toBe("5");
    }
  });

  test(`the process keeps running and serves calls again within ${RECOVER_WITHIN_MS} ms of the database's return`, async ({
    annotate,
  }) => {
    expect(server!.running(), `the process exited:\n${server!.output.slice(-30).join("\n")}`).toBe(true);
    const recovered: Record<string, number> = {};
    for (const [event, backAt] of Object.entries(marks.backAfter)) {
      const first = answers.find((a) => a.sentAt >= backAt && a.outcome?.status === 200);
      expect(first, `no 200 after ${event}`).toBeDefined();
      recovered[event] = Math.round(first!.answeredAt - backAt);
      expect(recovered[event]).toBeLessThan(RECOVER_WITHIN_MS);
    }
    const health = await request(server!.url, "GET", "/v1/health");
    expect(health.body).toMatchObject({ status: "healthy", database: "connected" });
    await annotate(`first 200 after the database was back (ms): ${JSON.stringify(recovered)}`);
  });

  test("from the moment pg_isready sees the database accept connections again, every request gets a 200", async ({
    annotate,
  }) => {
    const afterBack: Record<string, Record<string, number>> = {};
    for (const [event, backAt] of Object.entries(marks.backAfter)) {
      // Up to the next time the database is taken down, or to the end of the load.
      const nextDown = marks.goingDown.find((at) => at > backAt) ?? Number.POSITIVE_INFINITY;
      const sent = answers.filter((a) => a.sentAt >= backAt && a.answeredAt <= nextDown);
      afterBack[event] = tally(sent);
      expect(sent.length, `no request after ${event}`).toBeGreaterThan(0);
    }
    const figures = `answers to requests sent once pg_isready saw the database back: ${JSON.stringify(afterBack)}`;
    console.log(`restart: ${figures}`);
    await annotate(figures);
    for (const [event, counts] of Object.entries(afterBack)) {
      expect({ event, counts }).toEqual({ event, counts: { 200: expect.any(Number) } });
    }
  });

  test("every end answered 200 is read back by a later start: its variable and its intent", async ({ annotate }) => {
    expect(acknowledged.length).toBeGreaterThanOrEqual(20);
    expect(await unreadableCallers(calls!, acknowledged)).toEqual([]);
    await annotate(`${acknowledged.length} ends answered 200, every one read back`);
  });
});
