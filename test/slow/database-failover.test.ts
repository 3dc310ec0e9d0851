import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type AutoFailoverFormation, createAutoFailoverFormation, query } from "../helpers/auto-failover-formation.ts";
import { type CallClient, createCallClient } from "../helpers/call-client.ts";
import { type CallLoad, startCallLoad, statusOf, tally } from "../helpers/call-load.ts";
import { unreadableCallers } from "../helpers/callers.ts";
import { createAccountWithKey, type JsonResponse, request } from "../helpers/rest-client.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";

// The primary's machine dies (kill -9 of pg_autoctl and PostgreSQL together)
// under a steady load of starts and ends from 8 clients; pg_auto_failover
// promotes the synchronous standby. The service, given both hosts in one
// DATABASE_URL with target_session_attrs=read-write, follows it by itself.

const CLIENTS = 8;
const BACK_WITHIN_S = 15;
/** How long the test waits for the standby's promotion and then for a 200, before it gives up. */
const GIVE_UP_AFTER_MS = 60_000;
const LOAD_AFTER_RECOVERY_MS = 2_000;

type Probe = { readonly at: number; readonly res: JsonResponse } | { readonly at: number; readonly error: string };

let formation: AutoFailoverFormation | undefined;
let server: ServerProcess | undefined;
let calls: CallClient | undefined;
let load: CallLoad | undefined;
const health: Probe[] = [];
/** performance.now() marks, taken by this test's own clients. */
const marks = { killed: 0, promoted: 0, writable: 0 };

beforeAll(async () => {
  formation = await createAutoFailoverFormation();
  server = await startServerProcess({
    DATABASE_URL: formation.url,
    DB_STATEMENT_TIMEOUT_MS: "1000",
    // The rate-limit windows in memory: this file is about PostgreSQL only.
    REDIS_URL: "",
  });
  calls = createCallClient(server.url);
  const keys = await Promise.all(
    Array.from({ length: CLIENTS }, () => createAccountWithKey(server!.url, { tier: "scale" })),
  );
  load = startCallLoad(
    calls,
    keys.map((key) => key.apiKey),
  );
  const polling = { on: true };
  const healthPoller = pollHealth(server.url, polling);
  try {
    await sleep(2_000);
    marks.killed = performance.now();
    formation.kill(formation.primary);
    await watchStandby(formation);
    const promotedAt = marks.promoted;
    while (performance.now() - promotedAt < GIVE_UP_AFTER_MS && !firstOkAfter(promotedAt)) await sleep(100);
    await sleep(LOAD_AFTER_RECOVERY_MS);
  } finally {
    polling.on = false;
    await load.stop();
    await healthPoller;
  }
});

afterAll(async () => {
  calls?.close();
  await server?.stop();
  await formation?.remove();
});

/** The standby as a client sees it: when it leaves recovery (promoted), then when it takes writes. */
async function watchStandby(f: AutoFailoverFormation) {
  while (performance.now() - marks.killed < GIVE_UP_AFTER_MS) {
    const seen = await query(
      f.standby.url,
      "select pg_is_in_recovery() as recovering, current_setting('transaction_read_only') as read_only",
    ).catch(() => undefined);
    const row = seen?.rows[0];
    if (row && !row.recovering && marks.promoted === 0) marks.promoted = performance.now();
    if (row && row.read_only === "off" && !row.recovering) {
      marks.writable = performance.now();
      return;
    }
    await sleep(100);
  }
  throw new Error(`the standby was not promoted within ${GIVE_UP_AFTER_MS / 1000} s:\n${await f.state()}`);
}

async function pollHealth(url: string, polling: { on: boolean }) {
  while (polling.on) {
    const at = performance.now();
    health.push(
      await request(url, "GET", "/v1/health").then(
        (res) => ({ at, res }),
        (error) => ({ at, error: String(error) }),
      ),
    );
    await sleep(250);
  }
}

const firstOkAfter = (at: number) => load?.answers.find((a) => a.sentAt >= at && a.outcome?.status === 200);
const seconds = (ms: number) => (ms / 1000).toFixed(1);

describe("the primary killed under load, its synchronous standby promoted", () => {
  test("every request is answered 200, or 503 with Retry-After: never 500, never unanswered", async ({ annotate }) => {
    const answers = load!.answers;
    const unexpected = answers.filter(
      (a) => !(a.outcome?.status === 200 || (a.outcome?.status === 503 && a.outcome.headers["retry-after"] === "1")),
    );
    expect(unexpected.map((a) => ({ op: a.op, via: a.via, status: statusOf(a), headers: a.outcome?.headers }))).toEqual(
      [],
    );
    const refused = answers.filter((a) => a.outcome?.status === 503).length;
    const figures = `${answers.length} requests: ${JSON.stringify(tally(answers))}; 503s: ${refused}`;
    console.log(`failover: ${figures}`);
    await annotate(figures);
  });

  test(`the service answers 200 again within ${BACK_WITHIN_S} s of the standby's promotion, without a restart`, async ({
    annotate,
  }) => {
    expect(server!.running(), `the process exited:\n${server!.output.slice(-30).join("\n")}`).toBe(true);
    const first = firstOkAfter(marks.promoted);
    expect(first, `no 200 after the promotion:\n${await formation!.state()}`).toBeDefined();
    const back = first!.answeredAt - marks.promoted;
    const lateRefusals = load!.answers.filter((a) => a.sentAt >= marks.writable && a.outcome?.status !== 200).length;
    const figures =
      `primary killed; standby promoted ${seconds(marks.promoted - marks.killed)} s later, ` +
      `taking writes ${seconds(marks.writable - marks.killed)} s later; ` +
      `first 200 ${seconds(back)} s after the promotion (${seconds(first!.answeredAt - marks.killed)} s after the kill); ` +
      `${lateRefusals} answers other than 200 to requests sent after this test saw the standby take writes`;
    console.log(`failover: ${figures}`);
    await annotate(figures);
    expect(back).toBeLessThan(BACK_WITHIN_S * 1000);
  });

  test("every end answered 200, before and after the failover, is read back from the new primary", async ({
    annotate,
  }) => {
    const acknowledged = load!.acknowledged;
    const afterKill = load!.answers.filter(
      (a) => a.op === "end" && a.sentAt > marks.killed && a.outcome?.status === 200,
    );
    expect(acknowledged.length).toBeGreaterThanOrEqual(20);
    expect(afterKill.length).toBeGreaterThan(0);
    // The old primary is dead: whatever the service reads now, it reads from the new one.
    expect(await unreadableCallers(calls!, acknowledged)).toEqual([]);
    const { rows } = await query(formation!.standby.url, "select pg_is_in_recovery() as recovering");
    expect(rows[0].recovering).toBe(false);
    await annotate(
      `${acknowledged.length} ends answered 200 (${afterKill.length} after the kill), every one read back`,
    );
  });

  test("health says so: 503 disconnected with Retry-After while no primary answers, healthy once one does", async () => {
    const duringOutage = health.filter((p) => p.at > marks.killed + 500 && p.at < marks.promoted);
    expect(duringOutage.length).toBeGreaterThan(0);
    for (const probe of duringOutage) {
      if (!("res" in probe)) throw new Error(`health was not answered: ${probe.error}`);
      expect(probe.res.status).toBe(503);
      expect(probe.res.body).toMatchObject({ status: "unhealthy", database: "disconnected" });
      expect(probe.res.headers.get("retry-after")).toBe("5");
    }
    const now = await request(server!.url, "GET", "/v1/health");
    expect(now.status).toBe(200);
    expect(now.body).toMatchObject({ status: "healthy", database: "connected" });
  });
});
