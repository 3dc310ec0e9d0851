import { randomUUID } from "node:crypto";
import type { DescMethodUnary } from "@bufbuild/protobuf";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import { quotaOf } from "../helpers/admin-client.ts";
import { type CallClient, createCallClient, forKey, TRANSPORTS } from "../helpers/call-client.ts";
import { columnsHolding } from "../helpers/columns-holding.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { createRpcClient, type RpcClient } from "../helpers/rpc-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// The caller's "do not remember": the customer is erased, later calls from their identifiers are answered as
// new callers and leave nothing but the call's billing row (every column of every table is searched, as
// erasure-leaves-nothing.test.ts does), until the mark is lifted; the mark holds no identifier in clear.

const forget = CustomerService.method.forgetCustomer as unknown as DescMethodUnary;
const lift = CustomerService.method.liftForgetMe as unknown as DescMethodUnary;
const identify = CallerContextService.method.identifyCall as unknown as DescMethodUnary;

let server: TestServer;
let rpc: RpcClient;
let calls: CallClient;

beforeAll(async () => {
  server = await startTestServer();
  rpc = createRpcClient(server.url);
  calls = createCallClient(server.url);
});
afterAll(async () => {
  rpc?.close();
  calls?.close();
  await server?.stop();
});

async function callRow(callId: string) {
  const { rows } = await sql<{ customer_id: string | null; ani: string | null; call_end: Date | null }>`
    select customer_id, ani, call_end from calls where call_id = ${callId}
  `.execute(server.context.database.db);
  return rows[0];
}

describe.each(TRANSPORTS)("do not remember over %s", (via) => {
  test("a forgotten caller's later call leaves nothing but its billing row, until the mark is lifted", async () => {
    const { apiKey, accountId } = await createAccountWithKey(server.url);
    const keyed = forKey(calls, via, apiKey);
    const marker = randomUUID().slice(0, 8);
    const ani = via === "rest" ? "+14155558101" : "+14155558102";
    const crm = `CRM-${marker}`;
    const hints = { ani, dnis: "+18005550100", external_ids: { crm_id: crm } };

    const first = await keyed.start({ call_id: `first-${marker}`, identity_hints: hints });
    const ref = first.body.customer_ref as string;
    await keyed.end({
      call_id: `first-${marker}`,
      customer_ref: ref,
      intent: `intent-${marker}`,
      variables: { note: `value-${marker}` },
    });

    const forgotten = await rpc.call(via, forget, apiKey, { customer_ref: ref });
    expect(forgotten.status).toBe(200);
    expect(forgotten.body).toEqual({ customer_ref: ref, erased: true, identifiers_marked: 2 });

    // The mark: one row per identifier, and none of them in clear.
    const { rows: marks } = await sql<{ identifier_hash: string }>`select identifier_hash from forget_me_marks`.execute(
      server.context.database.db,
    );
    expect(marks.length).toBeGreaterThanOrEqual(2);
    for (const { identifier_hash } of marks) expect(identifier_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await columnsHolding(server.context.database.db, [ani, crm, ani.slice(1), ref])).toEqual([]);

    // A later call from the number: a stranger, and only the billing row is written (each request billed).
    const creditsBefore = await quotaOf(server.url, accountId);
    const laterId = `later-${marker}`;
    const later = await keyed.start({ call_id: laterId, identity_hints: { ani, external_ids: { crm_id: crm } } });
    expect(later.status).toBe(200);
    expect(later.body.customer_ref).not.toBe(ref);
    expect(later.body.identity).toEqual({ confidence: 0, level: "low", sources: [], recommendation: "ignore" });
    expect(later.body.open_intents).toEqual([]);
    expect(later.body.variables).toEqual({});
    const identified = await rpc.call(via, identify, apiKey, {
      call_id: laterId,
      identity_hints: { external_ids: { crm_id: crm } },
      verified: true,
    });
    expect(identified.status).toBe(200);
    expect(identified.body.identity.confidence).toBe(0);
    const ended = await keyed.end(
      {
        call_id: laterId,
        customer_ref: later.body.customer_ref,
        identity_hints: { ani },
        intent: `later-intent-${marker}`,
        intent_status: "open",
        variables: { note: `later-value-${marker}` },
      },
      { "Idempotency-Key": `key-${marker}` },
    );
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ call_id: laterId, intents_updated: 0, variables_updated: 0 });
    const replay = await keyed.end(
      { call_id: laterId, customer_ref: later.body.customer_ref, variables: { note: `later-value-${marker}` } },
      { "Idempotency-Key": `key-${marker}` },
    );
    expect(replay.status).toBe(200);
    expect(replay.body.call_end).toBe(ended.body.call_end);

    expect(await quotaOf(server.url, accountId)).toBe(creditsBefore - 4);
    expect(await callRow(laterId)).toEqual({ customer_id: null, ani: null, call_end: expect.any(Date) });
    const needles = [ani, crm, `later-intent-${marker}`, `later-value-${marker}`, later.body.customer_ref, ref];
    expect(await columnsHolding(server.context.database.db, needles)).toEqual([]);
    expect(await columnsHolding(server.context.database.db, [laterId])).toEqual(["calls.call_id"]);

    // Lifted by the external id alone: the whole mark goes, and the next call is remembered again.
    const lifted = await rpc.call(via, lift, apiKey, { external_id: `crm_id:${crm}` });
    expect(lifted.status).toBe(200);
    expect(lifted.body).toEqual({ lifted: true, identifiers_unmarked: 2 });
    const again = await keyed.start({ call_id: `again-${marker}`, identity_hints: { ani } });
    const againRef = again.body.customer_ref as string;
    await keyed.end({ call_id: `again-${marker}`, customer_ref: againRef, variables: { note: "kept" } });
    const remembered = await keyed.start({ call_id: `remembered-${marker}`, identity_hints: { ani } });
    expect(remembered.body.customer_ref).toBe(againRef);
    expect(remembered.body.identity.sources).toContain("ani:unknown");
    expect(remembered.body.variables.note).toEqual(expect.objectContaining({ value: "kept" }));
  });

  test("lifting where no mark is answers lifted false; a bad identifier is 400; an unknown ref is 404", async () => {
    const { apiKey } = await createAccountWithKey(server.url);
    const none = await rpc.call(via, lift, apiKey, { ani: "+14155558199" });
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ lifted: false, identifiers_unmarked: 0 });
    const both = await rpc.call(via, lift, apiKey, { ani: "+14155558199", external_id: "crm_id:1" });
    expect(both.status).toBe(400);
    expect(both.body.message).toBe("Validation failed");
    const unknown = await rpc.call(via, forget, apiKey, { customer_ref: randomUUID() });
    expect(unknown.status).toBe(404);
  });

  test("a mark belongs to one account: the same number elsewhere is remembered", async () => {
    const marking = await createAccountWithKey(server.url);
    const other = await createAccountWithKey(server.url);
    const ani = via === "rest" ? "+14155558111" : "+14155558112";
    const first = await forKey(calls, via, marking.apiKey).start({ call_id: "mark-1", identity_hints: { ani } });
    const elsewhere = await forKey(calls, via, other.apiKey).start({ call_id: "other-1", identity_hints: { ani } });
    expect((await rpc.call(via, forget, marking.apiKey, { customer_ref: first.body.customer_ref })).status).toBe(200);
    const back = await forKey(calls, via, other.apiKey).start({ call_id: "other-2", identity_hints: { ani } });
    expect(back.body.customer_ref).toBe(elsewhere.body.customer_ref);
  });
});

test("a forgotten caller's end naming a remembered customer saves nothing to them: the call stays a stranger's", async () => {
  const { apiKey } = await createAccountWithKey(server.url);
  const keyed = forKey(calls, "rest", apiKey);
  const marker = randomUUID().slice(0, 8);
  const remembered = await keyed.start({ call_id: `known-${marker}`, identity_hints: { ani: "+14155558111" } });
  const first = await keyed.start({ call_id: `first-${marker}`, identity_hints: { ani: "+14155558112" } });
  expect((await rpc.call("rest", forget, apiKey, { customer_ref: first.body.customer_ref })).status).toBe(200);
  const later = await keyed.start({ call_id: `later-${marker}`, identity_hints: { ani: "+14155558112" } });
  expect(later.body.identity.recommendation).toBe("ignore");

  const ended = await keyed.end({
    call_id: `later-${marker}`,
    customer_ref: remembered.body.customer_ref,
    variables: { note: `stranger-${marker}` },
  });
  expect(ended.status).toBe(200);
  expect(ended.body.variables_updated).toBe(0);
  expect((await callRow(`later-${marker}`)).customer_id).toBeNull();
  expect(await columnsHolding(server.context.database.db, [`stranger-${marker}`])).toEqual([]);
});
