import { randomUUID } from "node:crypto";
import type { DescMethodUnary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, expect, test } from "vitest";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import { type CallClient, countStatuses, createCallClient } from "../helpers/call-client.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { createRpcClient, type RpcClient } from "../helpers/rpc-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// Calls that chose a customer a moment before it was merged away or erased
// still succeed: the write finds the customer gone, is undone, and the call
// looks again (following the alias, or as a new caller).

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

const method = (name: string) => (CustomerService.method as unknown as Record<string, DescMethodUnary>)[name];

test("starts and ends racing a merge or an erasure of their customer all succeed", async () => {
  for (let round = 0; round < 3; round++) {
    const start = (hints: object) =>
      calls.start("rest", apiKey, { call_id: `call-${randomUUID()}`, identity_hints: hints });
    const survivor = (await start({ ani: `+1415888${round}001` })).body.customer_ref;
    const merged = (await start({ ani: `+1415888${round}002` })).body.customer_ref;
    const racing = Array.from({ length: 10 }, (_, i) =>
      start(i % 2 === 0 ? { customer_ref: merged } : { ani: `+1415888${round}002` }),
    );
    const merge = rpc.call("rest", method("mergeCustomers"), apiKey, { customer_ref: survivor, from: merged });
    const outcomes = await Promise.all(racing);
    expect((await merge).status).toBe(200);
    expect(countStatuses(outcomes)).toEqual({ 200: 10 });
    for (const outcome of outcomes) expect([survivor, merged]).toContain(outcome.body.customer_ref);

    // Ends naming a ref that is merged away meanwhile save to the survivor.
    const third = (await start({ ani: `+1415888${round}003` })).body.customer_ref;
    const open = await Promise.all(Array.from({ length: 10 }, () => start({ customer_ref: survivor })));
    const ends = open.map((o) => calls.end("rest", apiKey, { call_id: o.body.call_id, customer_ref: survivor }));
    const mergeAway = rpc.call("rest", method("mergeCustomers"), apiKey, { customer_ref: third, from: survivor });
    expect(countStatuses(await Promise.all(ends))).toEqual({ 200: 10 });
    expect((await mergeAway).status).toBe(200);

    const more = Array.from({ length: 10 }, () => start({ customer_ref: survivor }));
    const erase = rpc.call("rest", method("eraseCustomer"), apiKey, { customer_ref: third });
    expect(countStatuses(await Promise.all(more))).toEqual({ 200: 10 });
    expect((await erase).status).toBe(200);
  }
});
