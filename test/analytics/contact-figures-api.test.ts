import type { DescMethodUnary } from "@bufbuild/protobuf";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import { createManualClock } from "../../src/domain/clock.ts";
import { countEndedCalls, SETTLE_MS } from "../../src/jobs/contact-figures-job.ts";
import { TRANSPORTS, type Transport } from "../helpers/call-client.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { createRpcClient, type RpcClient } from "../helpers/rpc-client.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../helpers/test-server.ts";

// The worked examples of docs/analytics.md, over REST and gRPC, on a real server and database: the calls are
// started and ended through the API, the job counts them, the figures are read through the API.

const { startCall, endCall, getContactFigures, exportContactFigures } = CallerContextService.method;
const { mergeCustomers, eraseCustomer } = CustomerService.method;
const MINUTE = 60_000;

describe.each(TRANSPORTS)("contact figures over %s", (via: Transport) => {
  const clock = createManualClock(new Date("2026-10-01T00:00:00Z"));
  let server: TestServer;
  let rpc: RpcClient;
  let callNumber = 0;

  beforeAll(async () => {
    // The test runs the job itself, at moments it chooses; the sweep would delete the old calls it moves past.
    server = await startTestServer({
      clock,
      env: { CONTACT_FIGURES_INTERVAL_MS: "86400000", SWEEP_INTERVAL_MS: "86400000" },
    });
    rpc = createRpcClient(server.url);
  });
  afterAll(async () => {
    rpc?.close();
    await server?.stop();
  });

  const ok = async (method: DescMethodUnary, key: string, fields: object) => {
    const outcome = await rpc.call(via, method as DescMethodUnary, key, fields);
    if (outcome.status !== 200) throw new Error(`${method.name}: ${outcome.status} ${JSON.stringify(outcome.body)}`);
    return outcome.body;
  };

  /** A call from `ani` started at `at` and ended five minutes later, saving the intents. */
  async function call(key: string, ani: string, at: string, intents: [string, "open" | "resolved"][] = []) {
    clock.set(new Date(at));
    const callId = `call-${via}-${++callNumber}`;
    const started = await ok(startCall as DescMethodUnary, key, { call_id: callId, identity_hints: { ani } });
    clock.advance(5 * MINUTE);
    await ok(endCall as DescMethodUnary, key, {
      call_id: callId,
      customer_ref: started.customer_ref,
      intent_updates: intents.map(([intent, status]) => ({ intent, status })),
    });
    return started.customer_ref as string;
  }

  /** Runs the job until every call ended so far is counted. */
  async function countAll() {
    const now = new Date(clock.now().getTime() + SETTLE_MS + 1);
    for (;;) {
      const result = await countEndedCalls(server.context.database.db, now, 1000);
      if (result?.caughtUp) break;
    }
    // Later calls end after what was counted, as they do in service.
    clock.advance(MINUTE);
  }

  async function figures(key: string, from: string, to: string) {
    return ok(getContactFigures as DescMethodUnary, key, { from, to });
  }

  async function account(kind: "test" | "prod" = "test") {
    return createAccountWithKey(server.url, { kind });
  }

  it("resolved on the first call: first-contact resolution 100 %, 1 attempt, no repeat", async () => {
    const { apiKey } = await account();
    await call(apiKey, "+14155550101", "2026-10-01T10:00:00Z", [["billing", "resolved"]]);
    await countAll();
    const body = await figures(apiKey, "2026-10-01", "2026-10-01");
    expect(body.overall).toMatchObject({
      calls: 1,
      repeat_calls: 0,
      repeat_rate: 0,
      issues_opened: 1,
      resolved_first_contact: 1,
      first_contact_resolution: 1,
      issues_resolved: 1,
      mean_attempts: 1,
      attempts_distribution: [1, 0, 0, 0, 0],
    });
    expect(body.by_intent).toEqual([expect.objectContaining({ intent: "billing" })]);
    expect(body.previous_period).toEqual({ from: "2026-09-30", to: "2026-09-30" });
  });

  it("resolved on the second call within the window: not first contact, 2 attempts, a repeat contact", async () => {
    const { apiKey } = await account();
    await call(apiKey, "+14155550102", "2026-10-02T10:00:00Z", [["billing", "open"]]);
    await call(apiKey, "+14155550102", "2026-10-04T10:00:00Z", [["billing", "resolved"]]);
    await countAll();
    const body = await figures(apiKey, "2026-10-02", "2026-10-04");
    expect(body.overall).toMatchObject({
      calls: 2,
      repeat_calls: 1,
      repeat_rate: 0.5,
      issues_opened: 1,
      resolved_first_contact: 0,
      first_contact_resolution: 0,
      issues_resolved: 1,
      mean_attempts: 2,
      attempts_distribution: [0, 1, 0, 0, 0],
    });
    expect(body.by_intent[0].figures).toMatchObject({ calls: 2, repeat_calls: 1, repeat_rate: 0.5 });
    expect(body.by_day.map((d: { day: string; figures: { calls: number } }) => [d.day, d.figures.calls])).toEqual([
      ["2026-10-02", 1],
      ["2026-10-03", 0],
      ["2026-10-04", 1],
    ]);
  });

  it("saved open again after the window: a new issue, the first one stays resolved on first contact", async () => {
    const { apiKey } = await account();
    await call(apiKey, "+14155550103", "2026-10-05T10:00:00Z", [["billing", "resolved"]]);
    await call(apiKey, "+14155550103", "2026-10-14T10:00:00Z", [["billing", "open"]]);
    await countAll();
    const body = await figures(apiKey, "2026-10-05", "2026-10-14");
    expect(body.overall).toMatchObject({ calls: 2, repeat_calls: 0, issues_opened: 2, resolved_first_contact: 1 });
    expect(body.overall.first_contact_resolution).toBe(0.5);
    expect(body.open_issues).toMatchObject({ under_1_day: 1 });
  });

  it("saved open again within the window: the issue is reopened, no longer resolved on first contact", async () => {
    const { apiKey } = await account();
    await call(apiKey, "+14155550104", "2026-10-15T10:00:00Z", [["billing", "resolved"]]);
    await call(apiKey, "+14155550104", "2026-10-18T10:00:00Z", [["billing", "open"]]);
    await countAll();
    const body = await figures(apiKey, "2026-10-15", "2026-10-18");
    expect(body.overall).toMatchObject({
      calls: 2,
      repeat_calls: 1,
      issues_opened: 1,
      resolved_first_contact: 0,
      issues_resolved: 0,
      attempts_distribution: [0, 0, 0, 0, 0],
    });
  });

  it("two intents in one call: two issues, one resolved on first contact", async () => {
    const { apiKey } = await account();
    await call(apiKey, "+14155550105", "2026-10-19T10:00:00Z", [
      ["billing", "resolved"],
      ["address", "open"],
    ]);
    await countAll();
    const body = await figures(apiKey, "2026-10-19", "2026-10-19");
    expect(body.overall).toMatchObject({ calls: 1, issues_opened: 2, resolved_first_contact: 1 });
    expect(body.overall.first_contact_resolution).toBe(0.5);
    const byIntent = Object.fromEntries(
      body.by_intent.map((i: { intent: string; figures: { first_contact_resolution: number } }) => [
        i.intent,
        i.figures.first_contact_resolution,
      ]),
    );
    expect(byIntent).toEqual({ address: 0, billing: 1 });
  });

  it("a merge: the past stays as counted, the survivor's next call is compared with its own last call", async () => {
    const { apiKey } = await account();
    const a = await call(apiKey, "+14155550106", "2026-10-20T10:00:00Z", [["billing", "resolved"]]);
    const b = await call(apiKey, "+14155550107", "2026-10-21T10:00:00Z");
    await countAll();
    const before = await figures(apiKey, "2026-10-20", "2026-10-21");
    expect(before.overall).toMatchObject({ calls: 2, repeat_calls: 0 });
    await ok(mergeCustomers as DescMethodUnary, apiKey, { customer_ref: a, from: b });
    await call(apiKey, "+14155550107", "2026-10-22T10:00:00Z");
    await countAll();
    const after = await figures(apiKey, "2026-10-20", "2026-10-22");
    expect(after.overall).toMatchObject({ calls: 3, repeat_calls: 1, issues_opened: 1, resolved_first_contact: 1 });
    expect(after.by_day[0].figures).toEqual(before.by_day[0].figures);
  });

  it("an erasure: the counts stay, nothing of the customer does", async () => {
    const { apiKey } = await account();
    const ref = await call(apiKey, "+14155550108", "2026-10-23T10:00:00Z", [["billing", "open"]]);
    await countAll();
    await ok(eraseCustomer as DescMethodUnary, apiKey, { customer_ref: ref });
    const body = await figures(apiKey, "2026-10-23", "2026-10-23");
    expect(body.overall).toMatchObject({ calls: 1, issues_opened: 1 });
    expect(body.open_issues).toEqual({ under_1_day: 0, from_1_to_7_days: 0, from_7_to_30_days: 0, over_30_days: 0 });
    const db = server.context.database.db;
    const kept = await sql<{ n: number }>`
      select (select count(*) from contact_figures_callers where customer_id = ${ref})
        + (select count(*) from contact_figures_issues where customer_id = ${ref}) as n`.execute(db);
    expect(Number(kept.rows[0]?.n)).toBe(0);
    expect(
      JSON.stringify(
        await ok(exportContactFigures as DescMethodUnary, apiKey, { from: "2026-10-23", to: "2026-10-23" }),
      ),
    ).not.toContain(ref);
  });

  it("test and production apart, and another account's calls never counted", async () => {
    const test = await account("test");
    const prod = await post(server.url, `/admin/v1/accounts/${test.accountId}/keys`, ADMIN_TOKEN, { kind: "prod" });
    const other = await account("test");
    await call(test.apiKey, "+14155550109", "2026-10-24T10:00:00Z", [["billing", "open"]]);
    await call(prod.body.api_key, "+14155550109", "2026-10-24T11:00:00Z", [["refund", "resolved"]]);
    await call(other.apiKey, "+14155550109", "2026-10-24T12:00:00Z", [["address", "open"]]);
    await countAll();
    const inTest = await figures(test.apiKey, "2026-10-24", "2026-10-24");
    const inProd = await figures(prod.body.api_key, "2026-10-24", "2026-10-24");
    expect(inTest.overall).toMatchObject({ calls: 1, repeat_calls: 0 });
    expect(inTest.by_intent.map((i: { intent: string }) => i.intent)).toEqual(["billing"]);
    expect(inProd.overall).toMatchObject({ calls: 1, repeat_calls: 0 });
    expect(inProd.by_intent.map((i: { intent: string }) => i.intent)).toEqual(["refund"]);
  });

  it("the account's repeat window is honoured: 4 days apart is a repeat within 7 days, not within 3", async () => {
    const seven = await account();
    const three = await account();
    const set = await post(server.url, `/admin/v1/accounts/${three.accountId}/repeat-window`, ADMIN_TOKEN, {
      repeat_window_days: 3,
    });
    expect(set.body.account.repeat_window_days).toBe(3);
    for (const { apiKey } of [seven, three]) {
      await call(apiKey, "+14155550110", "2026-10-25T10:00:00Z");
      await call(apiKey, "+14155550110", "2026-10-29T10:00:00Z");
    }
    await countAll();
    expect((await figures(seven.apiKey, "2026-10-25", "2026-10-29")).overall.repeat_calls).toBe(1);
    const withThree = await figures(three.apiKey, "2026-10-25", "2026-10-29");
    expect(withThree.overall.repeat_calls).toBe(0);
    expect(withThree.repeat_window_days).toBe(3);
  });

  it("days are UTC days: 23:59:59 and 00:00:00 UTC fall on two days", async () => {
    const { apiKey } = await account();
    clock.set(new Date("2026-10-30T23:59:59Z"));
    await call(apiKey, "+14155550111", "2026-10-30T23:59:59Z");
    await call(apiKey, "+14155550112", "2026-10-31T00:00:00Z");
    await countAll();
    const body = await figures(apiKey, "2026-10-30", "2026-10-31");
    expect(body.by_day.map((d: { day: string; figures: { calls: number } }) => [d.day, d.figures.calls])).toEqual([
      ["2026-10-30", 1],
      ["2026-10-31", 1],
    ]);
  });

  it("the previous period of the same length is paired", async () => {
    const { apiKey } = await account();
    await call(apiKey, "+14155550113", "2026-11-01T10:00:00Z", [["billing", "resolved"]]);
    await call(apiKey, "+14155550114", "2026-11-03T10:00:00Z", [["billing", "open"]]);
    await countAll();
    const body = await figures(apiKey, "2026-11-03", "2026-11-04");
    expect(body.previous_period).toEqual({ from: "2026-11-01", to: "2026-11-02" });
    expect(body.previous_overall).toMatchObject({ calls: 1, first_contact_resolution: 1 });
    expect(body.overall).toMatchObject({ calls: 1, first_contact_resolution: 0 });
    expect(body.by_intent[0].previous).toMatchObject({ issues_opened: 1, resolved_first_contact: 1 });
    expect(Date.parse(body.counted_through)).toBeGreaterThan(Date.parse("2026-11-03T10:05:00Z"));
  });

  it("the CSV holds the same figures: overall, each intent, each day", async () => {
    const { apiKey } = await account();
    await call(apiKey, "+14155550115", "2026-11-05T10:00:00Z", [['billing, "refund"', "resolved"]]);
    await countAll();
    const { csv } = await ok(exportContactFigures as DescMethodUnary, apiKey, { from: "2026-11-05", to: "2026-11-05" });
    const lines = (csv as string).trimEnd().split("\r\n");
    expect(lines[0]).toMatch(/^row,name,calls,repeat_calls,repeat_rate,issues_opened,resolved_first_contact,/);
    expect(lines[1]).toMatch(/^overall,2026-11-05\.\.2026-11-05,1,0,0\.0000,1,1,1\.0000,1,1\.0000,1,0,0,0,0,/);
    expect(lines[2]).toMatch(/^intent,"billing, ""refund""",1,0,0\.0000,1,1,1\.0000,/);
    expect(lines[3]).toMatch(/^day,2026-11-05,1,/);
    expect(lines).toHaveLength(4);
  });

  it("a bad period is refused with every offending field, never a 500", async () => {
    const { apiKey } = await account();
    const missing = await rpc.call(via, getContactFigures as DescMethodUnary, apiKey, {});
    expect(missing.status).toBe(400);
    const tooLong = await rpc.call(via, getContactFigures as DescMethodUnary, apiKey, {
      from: "2025-01-01",
      to: "2026-01-02",
    });
    expect(tooLong.status).toBe(400);
    expect(JSON.stringify(tooLong.body)).toContain("at most 366 days");
    const longest = await rpc.call(via, getContactFigures as DescMethodUnary, apiKey, {
      from: "2025-01-01",
      to: "2026-01-01",
    });
    expect(longest.status).toBe(200);
    expect(longest.body.by_day).toHaveLength(366);
    const notADay = await rpc.call(via, getContactFigures as DescMethodUnary, apiKey, {
      from: "2026-02-30",
      to: "2026-01-01",
    });
    expect(notADay.status).toBe(400);
    const window = await post(server.url, "/admin/v1/accounts/acct_none/repeat-window", ADMIN_TOKEN, {
      repeat_window_days: 31,
    });
    expect(window.status).toBe(400);
  });
});
