import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CallClient, createCallClient } from "../helpers/call-client.ts";
import { type CallLoad, startCallLoad, statusOf, tally } from "../helpers/call-load.ts";
import { unreadableCallers } from "../helpers/callers.ts";
import { createAccountWithKey, request } from "../helpers/rest-client.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createThrowawayPostgres, type ThrowawayPostgres } from "../helpers/throwaway-postgres.ts";

// A switchover that closes no connection: under load, the primary turns
// read-only (default_transaction_read_only set and reloaded, as a primary being
// demoted reports itself), its streaming standby catches up and is promoted.
// Every connection the service's pool holds to the old primary stays open and
// answers, read-only: nothing but the service's own bookkeeping keeps them from
// being lent again.

const CLIENTS = 8;
const LOAD_BEFORE_MS = 1_000;
const LOAD_AFTER_MS = 3_000;
/** Longer than DB_STATEMENT_TIMEOUT_MS: no write begun before the change is still running on the old primary. */
const SETTLE_MS = 1_200;

let primary: ThrowawayPostgres | undefined;
let standby: ThrowawayPostgres | undefined;
let server: ServerProcess | undefined;
let calls: CallClient | undefined;
let load: CallLoad | undefined;
const marks = { readOnly: 0, promoted: 0 };

beforeAll(async () => {
  primary = await createThrowawayPostgres();
  standby = await createThrowawayPostgres({ standbyOf: primary.url });
  const port = (url: string) => new URL(url).port;
  server = await startServerProcess({
    DATABASE_URL: `postgres://postgres@127.0.0.1:${port(primary.url)},127.0.0.1:${port(standby.url)}/postgres?target_session_attrs=read-write`,
    DB_STATEMENT_TIMEOUT_MS: "1000",
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
  try {
    await sleep(LOAD_BEFORE_MS);
    await sql(primary.url, "alter system set default_transaction_read_only = on");
    await sql(primary.url, "select pg_reload_conf()");
    marks.readOnly = performance.now();
    await sleep(SETTLE_MS);
    const [{ lsn }] = await sql(primary.url, "select pg_current_wal_lsn()::text as lsn");
    while (
      (await sql(standby.url, `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as caught_up`))[0].caught_up !== true
    ) {
      await sleep(50);
    }
    await standby.promote();
    marks.promoted = performance.now();
    await sleep(LOAD_AFTER_MS);
  } finally {
    await load.stop();
  }
});

afterAll(async () => {
  calls?.close();
  await server?.stop();
  await Promise.all([primary?.remove(), standby?.remove()]);
});

async function sql(url: string, text: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

describe("a switchover under load that closes none of the service's connections", () => {
  test("from the first 200 after the promotion on, every request gets a 200: no connection to the old primary is lent again", async ({
    annotate,
  }) => {
    const after = load!.answers.filter((a) => a.sentAt >= marks.readOnly);
    const firstOk = after.find((a) => a.sentAt >= marks.promoted && a.outcome?.status === 200);
    expect(firstOk, "no 200 after the promotion").toBeDefined();
    const untilFirstOk = after.filter((a) => a.sentAt < firstOk!.sentAt);
    const fromFirstOk = after.filter((a) => a.sentAt >= firstOk!.sentAt);
    const figures =
      `before the change ${JSON.stringify(tally(load!.answers.filter((a) => a.sentAt < marks.readOnly)))}; ` +
      `then ${JSON.stringify(tally(untilFirstOk))} until the first 200, ` +
      `${Math.round(firstOk!.answeredAt - marks.promoted)} ms after the promotion ` +
      `(${after.filter((a) => a.sentAt >= marks.promoted && a.outcome?.status !== 200).length} answers but 200 to those sent after it); ` +
      `then ${JSON.stringify(tally(fromFirstOk))}`;
    console.log(`switchover: ${figures}`);
    await annotate(figures);
    // Until then, writes the old primary took before its backends read the change, or 503s; nothing else, ever.
    const refused = (a: (typeof after)[number]) =>
      a.outcome?.status === 503 && a.outcome.headers["retry-after"] === "1";
    expect(load!.answers.filter((a) => a.outcome?.status !== 200 && !refused(a)).map(statusOf)).toEqual([]);
    expect(tally(fromFirstOk)).toEqual({ 200: fromFirstOk.length });
  });

  test("every end answered 200, before and after, is read back from the new primary; health is healthy", async ({
    annotate,
  }) => {
    const acknowledged = load!.acknowledged;
    expect(acknowledged.length).toBeGreaterThanOrEqual(20);
    expect(await unreadableCallers(calls!, acknowledged)).toEqual([]);
    const health = await request(server!.url, "GET", "/v1/health");
    expect(health.body).toMatchObject({ status: "healthy", database: "connected" });
    await annotate(`${acknowledged.length} ends answered 200, every one read back`);
  });
});
