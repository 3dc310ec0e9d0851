import { randomUUID } from "node:crypto";
import type { DescMethodUnary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import { type CallClient, type CallOutcome, createCallClient } from "../helpers/call-client.ts";
import { createLockWatcher, holdRows, type LockWatcher } from "../helpers/lock-barrier.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { createRpcClient, type RpcClient } from "../helpers/rpc-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// A start, end or identify racing a merge or an erasure of its customer gets
// the answer docs/api.md gives, whichever commits first. Each interleaving is
// forced, never left to timing: the call runs wholly before the change, wholly
// after it, or (on PostgreSQL) while the change's transaction is held in
// flight at one of two points by a row a session of the test locks:
// - "customers locked": the change holds the customer (the merge both, FOR
//   UPDATE; the erasure has deleted it) and has not yet touched its calls;
// - "calls moved": the merge has moved the calls to the survivor, the
//   erasure has deleted them; the change has not committed.
// The call is sent then, and the hold released only once PostgreSQL shows the
// call's session waiting for the change's (pg_blocking_pids). The embedded
// engine runs one transaction at a time on its one connection, so a call's
// statement there runs wholly before or after a merge's or an erasure's
// transaction: only "before" and "after" exist, and are tested.

const ON_POSTGRES = Boolean(process.env.DATABASE_URL);

let server: TestServer;
let rpc: RpcClient;
let calls: CallClient;
let watcher: LockWatcher | undefined;
let apiKey = "";

beforeAll(async () => {
  server = await startTestServer({
    env: {
      // The time budgets have suites of their own; here a call held behind a change on a busy machine must still
      // be answered by what the database decided (a 503 past a budget would say nothing about the race).
      START_BUDGET_MS: "60000",
      END_BUDGET_MS: "60000",
      DB_STATEMENT_TIMEOUT_MS: "60000",
    },
  });
  rpc = createRpcClient(server.url);
  calls = createCallClient(server.url);
  ({ apiKey } = await createAccountWithKey(server.url));
  if (server.config.database.kind === "postgres") watcher = await createLockWatcher(server.config.database.url);
});
afterAll(async () => {
  await watcher?.close();
  rpc?.close();
  calls?.close();
  await server?.stop();
});

const method = (service: { method: unknown }, name: string) =>
  (service.method as Record<string, DescMethodUnary>)[name];
const merge = method(CustomerService, "mergeCustomers");
const erase = method(CustomerService, "eraseCustomer");
const identify = method(CallerContextService, "identifyCall");

let seq = 0;
const uniqueAni = () => `+1415666${String(++seq).padStart(4, "0")}`;

/** A setup step's answer: anything but 200 fails the test here, with its body, not later as a puzzling outcome. */
function ok(outcome: CallOutcome, what: string): any {
  if (outcome.status !== 200) throw new Error(`${what} answered ${outcome.status}: ${JSON.stringify(outcome.body)}`);
  return outcome.body;
}

async function startCall(hints: object): Promise<{ callId: string; ref: string }> {
  const callId = `call-${randomUUID()}`;
  const body = ok(await calls.start("rest", apiKey, { call_id: callId, identity_hints: hints }), "setup start");
  return { callId, ref: body.customer_ref };
}

/**
 * The two customers of a change: `survivor`, and `changed` (merged into the survivor, or erased), which has an
 * identifier, a dialled number and an intent, so that each point of its change has a row to be held at.
 */
async function twoCustomers(): Promise<{ survivor: string; changed: string }> {
  const survivor = (await startCall({ ani: uniqueAni() })).ref;
  const first = await startCall({ ani: uniqueAni(), dnis: "+14155550100" });
  ok(
    await calls.end("rest", apiKey, { call_id: first.callId, customer_ref: first.ref, intent: "refund" }),
    "setup end",
  );
  return { survivor, changed: first.ref };
}

type Change = "merge" | "erase";
type Moment = "before" | "after" | "during, customers locked" | "during, calls moved";

/** What the barrier session locks to hold each change in flight at each point (see the top of the file). */
const BARRIER: Record<Change, Record<"during, customers locked" | "during, calls moved", string>> = {
  // The merge's second step moves the identifiers; its last, the delete of the merged customer, takes with it
  // the dialled numbers that did not move.
  merge: {
    "during, customers locked": "select 1 from customer_identifiers where customer_id = $1 for update",
    "during, calls moved": "select 1 from customer_dnis where customer_id = $1 for update",
  },
  // The erasure's delete cascades to identifiers, dialled numbers, calls, intents… in the order the foreign keys
  // were created.
  erase: {
    "during, customers locked": "select 1 from customer_identifiers where customer_id = $1 for update",
    "during, calls moved": "select 1 from intents where customer_id = $1 for update",
  },
};

const MOMENTS: Moment[] = ON_POSTGRES
  ? ["before", "during, customers locked", "during, calls moved", "after"]
  : ["before", "after"];

/** Runs the change and the call in the order `moment` names; both answers. */
async function race(
  moment: Moment,
  change: Change,
  customers: { survivor: string; changed: string },
  call: () => Promise<CallOutcome>,
): Promise<{ call: CallOutcome; change: CallOutcome }> {
  const runChange = () =>
    change === "merge"
      ? rpc.call("rest", merge, apiKey, { customer_ref: customers.survivor, from: customers.changed })
      : rpc.call("rest", erase, apiKey, { customer_ref: customers.changed });
  if (moment === "before") {
    const first = await call();
    return { call: first, change: await runChange() };
  }
  if (moment === "after") {
    const first = await runChange();
    return { call: await call(), change: first };
  }
  if (watcher === undefined || server.config.database.kind !== "postgres") throw new Error("needs PostgreSQL");
  const hold = await holdRows(server.config.database.url, BARRIER[change][moment], [customers.changed]);
  try {
    const changing = runChange();
    const changePid = await watcher.waiterOf(hold.pid, changing);
    const calling = call();
    await watcher.waiterOf(changePid, calling);
    await hold.release();
    return { call: await calling, change: await changing };
  } finally {
    await hold.release();
  }
}

describe.each(MOMENTS)("a call %s a merge or an erasure of its customer", (moment) => {
  const changedFirst = moment !== "before";

  test("an end naming the merged customer saves to the survivor", async () => {
    const customers = await twoCustomers();
    const open = await startCall({ customer_ref: customers.changed });
    const { call, change } = await race(moment, "merge", customers, () =>
      calls.end("rest", apiKey, { call_id: open.callId, customer_ref: customers.changed, intent: "billing" }),
    );
    expect(change.status).toBe(200);
    expect(call.status).toBe(200);
    expect(call.body.customer_ref).toBe(changedFirst ? customers.survivor : customers.changed);
  });

  test("an end naming no customer saves to the survivor of the customer the call had", async () => {
    const customers = await twoCustomers();
    const open = await startCall({ customer_ref: customers.changed });
    const { call, change } = await race(moment, "merge", customers, () =>
      calls.end("rest", apiKey, {
        call_id: open.callId,
        identity_hints: { external_ids: { account: `A-${randomUUID().slice(0, 8)}` } },
        intent: "billing",
      }),
    );
    expect(change.status).toBe(200);
    expect(call.status).toBe(200);
    expect(call.body.customer_ref).toBe(changedFirst ? customers.survivor : customers.changed);
  });

  test("an end of a call whose customer is erased is 404: the call went with its customer", async () => {
    const customers = await twoCustomers();
    const open = await startCall({ customer_ref: customers.changed });
    const { call, change } = await race(moment, "erase", customers, () =>
      calls.end("rest", apiKey, { call_id: open.callId, customer_ref: customers.changed, intent: "billing" }),
    );
    expect(change.status).toBe(200);
    expect(call.status).toBe(changedFirst ? 404 : 200);
  });

  test("a start naming the merged customer is matched to the survivor", async () => {
    const customers = await twoCustomers();
    const { call, change } = await race(moment, "merge", customers, () =>
      calls.start("rest", apiKey, {
        call_id: `call-${randomUUID()}`,
        identity_hints: { customer_ref: customers.changed },
      }),
    );
    expect(change.status).toBe(200);
    expect(call.status).toBe(200);
    expect(call.body.customer_ref).toBe(changedFirst ? customers.survivor : customers.changed);
  });

  test("a start naming the erased customer is a new caller", async () => {
    const customers = await twoCustomers();
    const { call, change } = await race(moment, "erase", customers, () =>
      calls.start("rest", apiKey, {
        call_id: `call-${randomUUID()}`,
        identity_hints: { customer_ref: customers.changed },
      }),
    );
    expect(change.status).toBe(200);
    expect(call.status).toBe(200);
    if (changedFirst) expect(call.body.customer_ref).not.toBe(customers.changed);
    else expect(call.body.customer_ref).toBe(customers.changed);
  });

  test("an identify naming the merged customer moves the call to the survivor", async () => {
    const customers = await twoCustomers();
    const open = await startCall({ ani: uniqueAni() });
    const { call, change } = await race(moment, "merge", customers, () =>
      rpc.call("rest", identify, apiKey, { call_id: open.callId, identity_hints: { customer_ref: customers.changed } }),
    );
    expect(change.status).toBe(200);
    expect(call.status).toBe(200);
    expect(call.body.customer_ref).toBe(changedFirst ? customers.survivor : customers.changed);
  });

  test("an identify moving a call of the merged customer to the survivor moves it there", async () => {
    const customers = await twoCustomers();
    const open = await startCall({ customer_ref: customers.changed });
    const { call, change } = await race(moment, "merge", customers, () =>
      rpc.call("rest", identify, apiKey, {
        call_id: open.callId,
        identity_hints: { customer_ref: customers.survivor },
      }),
    );
    expect(change.status).toBe(200);
    expect(call.status).toBe(200);
    expect(call.body.customer_ref).toBe(customers.survivor);
  });

  test("an identify naming the erased customer leaves the call with its own customer", async () => {
    const customers = await twoCustomers();
    const open = await startCall({ ani: uniqueAni() });
    const { call, change } = await race(moment, "erase", customers, () =>
      rpc.call("rest", identify, apiKey, { call_id: open.callId, identity_hints: { customer_ref: customers.changed } }),
    );
    expect(change.status).toBe(200);
    expect(call.status).toBe(200);
    expect(call.body.customer_ref).toBe(changedFirst ? open.ref : customers.changed);
  });
});
