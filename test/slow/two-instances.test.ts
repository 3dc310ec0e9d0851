import { setTimeout as sleep } from "node:timers/promises";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { quotaPeriodOf } from "../../src/store/billing/charge.ts";
import { quotaOf, revokeKey, setQuota } from "../helpers/admin-client.ts";
import {
  type CallClient,
  type CallOutcome,
  countStatuses,
  createCallClient,
  startBody,
  TRANSPORTS,
  uniqueCallId,
} from "../helpers/call-client.ts";
import { placeCredits } from "../helpers/quota-slots.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

// Two instances of the service, as separate processes on one PostgreSQL
// database and one Redis: the guards must hold across them, not per process.

let database: TestDatabase | undefined;
const instances: ServerProcess[] = [];
const clients: CallClient[] = [];

beforeAll(async () => {
  const missing = ["DATABASE_URL", "REDIS_URL"].filter((name) => !process.env[name]);
  if (missing.length > 0) {
    throw new Error(
      `The two-instance tests need a shared PostgreSQL and Redis; set ${missing.join(" and ")}, ` +
        "e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379",
    );
  }
  database = await createTestDatabase();
  // As in test/helpers/test-server.ts: bursts at a busy machine are sent on purpose here, and what is proved is
  // which answers they get once they run, not how fast (admission control and budgets have suites of their own).
  const env = {
    ...database.env,
    REDIS_URL: process.env.REDIS_URL!,
    ADMISSION_INITIAL_LIMIT: "10000",
    ADMISSION_MIN_LIMIT: "10000",
    ADMISSION_MAX_LIMIT: "10000",
    ADMISSION_MAX_EVENT_LOOP_DELAY_MS: "0",
    START_BUDGET_MS: "30000",
  };
  // Started together, as a rolling deploy would: both run the migrations.
  instances.push(...(await Promise.all([startServerProcess(env), startServerProcess(env)])));
  clients.push(...instances.map((instance) => createCallClient(instance.url)));
});
afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all(instances.map((instance) => instance.stop()));
  await database?.drop();
});

/** What the instances logged as errors: a 5xx says why here, in the failure's message. */
function serverErrors(): string {
  const lines = instances.flatMap((instance) => instance.output.filter((line) => /"level":(50|60)/.test(line)));
  return lines.length === 0 ? "no error logged by either instance" : lines.join("\n");
}

/** Request i goes to instance i mod 2, over REST and gRPC in turn. */
function spread(i: number): { client: CallClient; via: (typeof TRANSPORTS)[number] } {
  return { client: clients[i % 2], via: TRANSPORTS[Math.floor(i / 2) % 2] };
}

describe("two instances share one rate-limit window", () => {
  test("130 requests from one Free key, alternating over both instances: exactly 110 × 200 and 20 × 429", async ({
    annotate,
  }) => {
    const { apiKey } = await createAccountWithKey(instances[0].url, { tier: "free", quota: 1_000 });
    const outcomes: CallOutcome[] = [];
    for (let i = 0; i < 130; i++) {
      const { client, via } = spread(i);
      outcomes.push(await client.start(via, apiKey, startBody()));
    }
    expect(outcomes.slice(0, 110).map((o) => o.status)).toEqual(Array(110).fill(200));
    expect(outcomes.slice(110).map((o) => o.status)).toEqual(Array(20).fill(429));
    const rest429 = outcomes.slice(110).filter((o) => o.body?.currentUsage !== undefined);
    expect(rest429.map((o) => o.body.currentUsage)).toEqual(Array(rest429.length).fill(110));
    expect(rest429.length).toBeGreaterThan(0);
    await annotate(`130 requests over two instances: ${JSON.stringify(countStatuses(outcomes))}`);
  });
});

describe("two instances share one quota", () => {
  test("with 5 credits, 20 simultaneous starts over both instances: exactly 5 × 200 and 15 × 402", async ({
    annotate,
  }) => {
    const { accountId, apiKey } = await createAccountWithKey(instances[0].url, { tier: "growth" });
    await setQuota(instances[1].url, accountId, 5);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => spread(i).client.start(spread(i).via, apiKey, startBody())),
    );
    expect(countStatuses(outcomes), serverErrors()).toEqual({ 200: 5, 402: 15 });
    // What each success reports left is an upper bound when calls overlap (docs/limits.md).
    const left = outcomes.filter((o) => o.status === 200).map((o) => Number(o.headers["x-quota-remaining"]));
    for (const count of left) expect(count).toBeGreaterThanOrEqual(0);
    for (const count of left) expect(count).toBeLessThanOrEqual(4);
    expect(await quotaOf(instances[0].url, accountId)).toBe(0);
    await annotate(`5 credits, 20 concurrent over two instances: ${JSON.stringify(countStatuses(outcomes))}`);
  });
});

describe("two instances share one quota near zero", () => {
  test("7 credits left in 2 of the 16 slots, 40 simultaneous starts over both instances: exactly 7 × 200 and 33 × 402", async ({
    annotate,
  }) => {
    const { accountId, apiKey } = await createAccountWithKey(instances[0].url, { tier: "growth" });
    const db = new Kysely<any>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database!.env.DATABASE_URL }) }),
    });
    try {
      await placeCredits(db, accountId, quotaPeriodOf(new Date()), { 5: 4, 9: 3 });
    } finally {
      await db.destroy();
    }
    expect(await quotaOf(instances[1].url, accountId)).toBe(7);
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => spread(i).client.start(spread(i).via, apiKey, startBody())),
    );
    expect(countStatuses(outcomes), serverErrors()).toEqual({ 200: 7, 402: 33 });
    expect(await quotaOf(instances[0].url, accountId)).toBe(0);
    // Nothing is refused while a credit is left: the last one, alone in another slot, is found.
    await setQuota(instances[0].url, accountId, 1);
    expect((await spread(1).client.start("rest", apiKey, startBody())).status).toBe(200);
    await annotate(`7 credits in 2 slots, 40 starts over two instances: ${JSON.stringify(countStatuses(outcomes))}`);
  });
});

describe("two instances share one call_id space", () => {
  test("20 simultaneous starts with one call_id over both instances: one 200, nineteen 409, one credit used", async ({
    annotate,
  }) => {
    const { accountId, apiKey } = await createAccountWithKey(instances[0].url, { tier: "growth", quota: 100 });
    const body = startBody(uniqueCallId("race"));
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => spread(i).client.start(spread(i).via, apiKey, body)),
    );
    expect(countStatuses(outcomes), serverErrors()).toEqual({ 200: 1, 409: 19 });
    expect(await quotaOf(instances[1].url, accountId)).toBe(99);
    await annotate(`one call_id, 20 concurrent over two instances: ${JSON.stringify(countStatuses(outcomes))}`);
  });
});

describe("a revocation reaches the other instance", () => {
  test("a key revoked through instance A is refused by instance B within 1 second", async ({ annotate }) => {
    const [a] = instances;
    const [clientA, clientB] = clients;
    const { apiKey, keyId } = await createAccountWithKey(a.url);
    // B has just accepted the key, so whatever B remembers about it says "valid".
    expect((await clientB.start("rest", apiKey, startBody())).status).toBe(200);

    const revoked = await revokeKey(a.url, keyId);
    expect(revoked.status).toBe(200);
    const revokedAt = performance.now();
    expect((await clientA.start("rest", apiKey, startBody())).body).toEqual({
      error: "Unauthorized",
      message: "API key has been revoked",
    });

    let refused: CallOutcome | undefined;
    let elapsed = 0;
    while (elapsed <= 1_500) {
      const outcome = await clientB.start("rest", apiKey, startBody());
      elapsed = performance.now() - revokedAt;
      if (outcome.status !== 200) {
        refused = outcome;
        break;
      }
      await sleep(100);
    }
    expect(refused?.status).toBe(401);
    expect(refused?.body.message).toBe("API key has been revoked");
    expect(elapsed).toBeLessThanOrEqual(1_000);
    expect((await clientB.start("grpc", apiKey, startBody())).grpcError?.details).toBe("API key has been revoked");
    await annotate(`revocation seen by the other instance after ${Math.round(elapsed)} ms`);
  });
});

describe("two instances share one idempotency record", () => {
  test("the same end with one Idempotency-Key sent 10 times at once over both instances: one save, ten identical 200s", async ({
    annotate,
  }) => {
    const { accountId, apiKey } = await createAccountWithKey(instances[0].url, { tier: "growth", quota: 100 });
    const callId = uniqueCallId("idem");
    const crm = uniqueCallId("crm");
    const started = await clients[0].start("rest", apiKey, {
      call_id: callId,
      identity_hints: { external_ids: { crm_id: crm } },
    });
    expect(started.status).toBe(200);
    const end = { call_id: callId, customer_ref: started.body.customer_ref, intent: "refund", intent_status: "open" };
    const headers = { "Idempotency-Key": uniqueCallId("key") };
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => clients[i % 2].end("rest", apiKey, end, headers)),
    );
    expect(countStatuses(outcomes), serverErrors()).toEqual({ 200: 10 });
    for (const outcome of outcomes) expect(outcome.body).toEqual(outcomes[0].body);

    const later = await clients[1].start("rest", apiKey, {
      call_id: uniqueCallId("later"),
      identity_hints: { external_ids: { crm_id: crm } },
    });
    expect(later.body.open_intents).toEqual([{ intent: "refund", status: "open", attempt_count: 1 }]);
    // Each replay is a successful call and is billed: start + 10 ends + the later start.
    expect(await quotaOf(instances[0].url, accountId)).toBe(100 - 12);
    await annotate(
      `one Idempotency-Key, 10 concurrent ends over two instances: ${JSON.stringify(countStatuses(outcomes))}`,
    );
  });
});
