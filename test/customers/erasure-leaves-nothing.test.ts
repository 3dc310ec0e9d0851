import { randomUUID } from "node:crypto";
import type { DescMethodUnary } from "@bufbuild/protobuf";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import { countEndedCalls, SETTLE_MS } from "../../src/jobs/contact-figures-job.ts";
import { type CallClient, createCallClient } from "../helpers/call-client.ts";
import { columnsHolding } from "../helpers/columns-holding.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { createRpcClient, type RpcClient } from "../helpers/rpc-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// After an erasure no table holds the customer's number, external id,
// variable value, intent name or ref. Every column of every table of the
// schema is searched, so a table added later is covered without a change here.

let server: TestServer;
let rpc: RpcClient;
let calls: CallClient;
let apiKey = "";

beforeAll(async () => {
  server = await startTestServer();
  rpc = createRpcClient(server.url);
  calls = createCallClient(server.url);
  ({ apiKey } = await createAccountWithKey(server.url));
});
afterAll(async () => {
  rpc?.close();
  calls?.close();
  await server?.stop();
});

test("an erased customer's data is in no column of any table", async () => {
  const marker = randomUUID().slice(0, 8);
  const ani = "+14155559876";
  const crm = `CRM-${marker}`;
  const start = (hints: object) =>
    calls.start("rest", apiKey, { call_id: `call-${randomUUID()}`, identity_hints: hints });
  const first = await start({ ani, dnis: "+18005550100", external_ids: { crm_id: crm } });
  const ref = first.body.customer_ref as string;
  const end = await calls.end(
    "rest",
    apiKey,
    {
      call_id: first.body.call_id,
      customer_ref: ref,
      intent_updates: [
        { intent: `intent-${marker}`, status: "open" },
        {
          intent: `done-${marker}`,
          status: "resolved",
          resolution: { type: "ticket", external_reference: `T-${marker}` },
        },
      ],
      variable_updates: {
        note: { value: `value-${marker}`, source: `agent-${marker}` },
        home: { value: `home-${marker}`, requires_verification: true },
      },
      summary: `summary-${marker}`,
    },
    { "idempotency-key": `key-${marker}` },
  );
  expect(end.status).toBe(200);
  // An open call identified to the customer, and a second customer merged in (its ref becomes an alias).
  const open = await start({ ani });
  const identify = CallerContextService.method.identifyCall as unknown as DescMethodUnary;
  const identified = await rpc.call("rest", identify, apiKey, {
    call_id: open.body.call_id,
    identity_hints: { external_ids: { crm_id: crm } },
    verified: true,
  });
  expect(identified.body.customer_ref).toBe(ref);
  const other = await start({ ani: "+14155559877", external_ids: { other_id: `O-${marker}` } });
  const merge = CustomerService.method.mergeCustomers as unknown as DescMethodUnary;
  expect((await rpc.call("rest", merge, apiKey, { customer_ref: ref, from: other.body.customer_ref })).status).toBe(
    200,
  );

  const needles = [
    ani,
    "+14155559877",
    crm,
    `O-${marker}`,
    `value-${marker}`,
    `home-${marker}`,
    `intent-${marker}`,
    `done-${marker}`,
    `summary-${marker}`,
  ];
  const refs = [ref, other.body.customer_ref as string];
  const before = await columnsHolding(server.context.database.db, [...needles, ...refs]);
  expect(before).toEqual(
    expect.arrayContaining([
      "customer_identifiers.value",
      "variables.value",
      "intents.name",
      "calls.summary",
      "calls.intents",
      "customer_aliases.alias_id",
    ]),
  );

  // The contact figures count the ended call first: their state holds the customer until the erasure, their
  // counts keep the intents' names (the account's topics, docs/analytics.md) and nothing else of the customer.
  const db = server.context.database.db;
  while (!(await countEndedCalls(db, new Date(Date.now() + SETTLE_MS), 1000))?.caughtUp);
  const state = await sql<{ n: number }>`
    select (select count(*) from contact_figures_callers where customer_id = ${ref})::int
      + (select count(*) from contact_figures_issues where customer_id = ${ref})::int as n`.execute(db);
  expect(state.rows[0]?.n).toBe(3);

  const erase = CustomerService.method.eraseCustomer as unknown as DescMethodUnary;
  expect((await rpc.call("rest", erase, apiKey, { customer_ref: ref })).status).toBe(200);
  expect(await columnsHolding(db, [...needles, ...refs])).toEqual(["contact_figures_days.intent"]);
  const intentNames = [`intent-${marker}`, `done-${marker}`];
  const counted = await sql<{ intent: string }>`
    select distinct intent from contact_figures_days where position(${marker} in intent) > 0 order by intent`.execute(
    db,
  );
  expect(counted.rows.map((r) => r.intent)).toEqual([...intentNames].sort());
});
