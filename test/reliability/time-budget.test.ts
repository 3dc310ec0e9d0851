import { setTimeout as sleep } from "node:timers/promises";
import { status } from "@grpc/grpc-js";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { quotaOf } from "../helpers/admin-client.ts";
import { type CallClient, createCallClient, startBody, TRANSPORTS, uniqueCallId } from "../helpers/call-client.ts";
import { blockDatabase } from "../helpers/database-blocker.ts";
import { callUnary, createGrpcClient } from "../helpers/grpc-client.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

const BUDGET_MS = 300;
let server: TestServer;
let calls: CallClient;

beforeAll(async () => {
  server = await startTestServer({ env: { START_BUDGET_MS: String(BUDGET_MS) } });
  calls = createCallClient(server.url);
});
afterAll(async () => {
  calls.close();
  await server.stop();
});

describe.each(TRANSPORTS)("a start over %s that cannot be answered within its budget", (via) => {
  test("fails fast with 503 and Retry-After, and leaves nothing behind", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    const credits = await quotaOf(server.url, accountId);
    const callId = uniqueCallId();
    const block = await blockDatabase(server, accountId, 1000);
    let lifted = false;
    void block.lifted.then(() => {
      lifted = true;
    });
    const outcome = await calls.start(via, apiKey, startBody(callId));
    // Answered while the database was still held: the client did not wait for it.
    const answeredWhileHeld = !lifted;
    await block.lifted;

    expect(outcome.status).toBe(503);
    expect(outcome.headers["retry-after"]).toBe("1");
    if (via === "rest") expect(outcome.body).toEqual({ error: "Service Unavailable", message: expect.any(String) });
    else expect(outcome.grpcError?.code).toBe(status.UNAVAILABLE);
    expect(answeredWhileHeld).toBe(true);

    // The abandoned work rolled back: the call_id is free (a recorded one would get 409) and no credit was used.
    // The retry has the same 300 ms budget; on a loaded machine the embedded database's one connection may still
    // be working through what queued behind the block, so a 503 is retried, as a client would.
    let retry = await calls.start(via, apiKey, startBody(callId));
    for (let attempt = 1; attempt < 5 && retry.status === 503; attempt++) {
      await sleep(200);
      retry = await calls.start(via, apiKey, startBody(callId));
    }
    expect(retry.status).toBe(200);
    expect(await quotaOf(server.url, accountId)).toBe(credits - 1);
  });
});

describe("a gRPC client's deadline", () => {
  test("is honoured, and the database work it cancels is rolled back", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    const callId = uniqueCallId();
    const client = createGrpcClient(server.url);
    // Lifted before the 300 ms budget ends: only the client's 100 ms deadline can stop the work.
    const block = await blockDatabase(server, accountId, 250);
    const { error } = await callUnary(
      client,
      CallerContextService.method.startCall,
      { callId, identityHints: { ani: "+14155550123" } },
      { authorization: `Bearer ${apiKey}` },
      { deadlineMs: 100 },
    );
    await block.lifted;
    client.close();
    expect(error?.code).toBe(status.DEADLINE_EXCEEDED);
    expect((await calls.start("rest", apiKey, startBody(callId))).status).toBe(200);
  });
});

/** Waits until a session other than the blocker waits for a row lock; returns when it was seen. */
async function lockWaitSeen(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query(
        "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock'",
      );
      if (rows[0].n > 0) return performance.now();
      await sleep(2);
    }
  } finally {
    await client.end();
  }
}

describe("a start whose statement gets past its lock wait after the deadline", () => {
  test("leaves nothing behind: 503, call_id free, no credit used", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    const credits = await quotaOf(server.url, accountId);
    const callId = uniqueCallId();
    const { database } = server.config;
    // Lifted after the deadline and, as a rule, before the budget's timer cancels the statement (50 ms later):
    // the statement itself finds it is late and undoes what it wrote.
    let lifted: Promise<void>;
    let outcome: Awaited<ReturnType<CallClient["start"]>>;
    if (database.kind === "postgres") {
      const blocker = new pg.Client({ connectionString: database.url });
      await blocker.connect();
      await blocker.query("begin");
      await blocker.query("select 1 from quota_slots where account_id = $1 for update", [accountId]);
      const answer = calls.start("rest", apiKey, startBody(callId));
      // The request arrived before its statement waits, so its deadline is at most a budget after that.
      const waiting = await lockWaitSeen(database.url);
      await sleep(Math.max(0, waiting + BUDGET_MS + 5 - performance.now()));
      lifted = blocker.query("rollback").then(() => blocker.end());
      outcome = await answer;
    } else {
      const sent = performance.now();
      const block = await blockDatabase(server, accountId, BUDGET_MS + 20);
      outcome = await calls.start("rest", apiKey, startBody(callId));
      lifted = block.lifted;
      expect(performance.now() - sent).toBeGreaterThan(BUDGET_MS);
    }
    await lifted;
    expect(outcome.status).toBe(503);
    expect(outcome.headers["retry-after"]).toBe("1");
    // Refused by the statement itself (nothing was saved) or, on a slow machine, by the cancel that follows.
    expect(outcome.body.message).toMatch(/^(Not done within the time budget; nothing was saved|Not answered within)/);
    expect((await calls.start("rest", apiKey, startBody(callId))).status).toBe(200);
    expect(await quotaOf(server.url, accountId)).toBe(credits - 1);
  });
});

describe.each(TRANSPORTS)("a start over %s whose commit is still under way when the budget runs out", (via) => {
  test("is answered with what its statement did: 200 with its row, or 503 with nothing saved", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    const credits = await quotaOf(server.url, accountId);
    const { db } = server.context.database;
    // A deferred trigger runs at commit, after the statement's deadline check: this call's commit takes 350 ms,
    // past the 300 ms budget. PostgreSQL cancels it there (the cancel interrupts the trigger); the embedded
    // database, which cannot cancel, commits it.
    await sql`create function slow_commit() returns trigger language plpgsql as $$
      begin if new.call_id like 'slow-commit-%' then perform pg_sleep(0.35); end if; return null; end $$`.execute(db);
    await sql`create constraint trigger slow_commit after insert on calls
      deferrable initially deferred for each row execute function slow_commit()`.execute(db);
    try {
      const callId = uniqueCallId("slow-commit");
      const outcome = await calls.start(via, apiKey, startBody(callId));
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from calls where call_id = ${callId}`.execute(
        db,
      );
      // PostgreSQL is sent a cancel when the budget runs out; on a loaded machine it may reach the backend only
      // after the commit finished, and then the answer is the commit's success. Either way it says what was saved.
      if (server.config.database.kind === "postgres" && outcome.status !== 200) {
        expect(outcome.status).toBe(503);
        expect(rows[0]?.n).toBe(0);
        expect(await quotaOf(server.url, accountId)).toBe(credits);
      } else {
        expect(outcome.status).toBe(200);
        expect(outcome.body.call_id).toBe(callId);
        expect(rows[0]?.n).toBe(1);
        expect(await quotaOf(server.url, accountId)).toBe(credits - 1);
      }
    } finally {
      await sql`drop trigger slow_commit on calls`.execute(db);
      await sql`drop function slow_commit()`.execute(db);
    }
  });
});
