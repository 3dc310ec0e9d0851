import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { CustomerStore } from "../../src/customers/customer-store.ts";
import { eraseCustomer } from "../../src/customers/erase-customer.ts";
import { getCustomer } from "../../src/customers/get-customer.ts";
import { mergeCustomers } from "../../src/customers/merge-customers.ts";
import { DomainError } from "../../src/domain/domain-error.ts";
import type { Tenant } from "../../src/domain/tenant.ts";
import { type CallClient, createCallClient } from "../helpers/call-client.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// Merging never loses an identifier, and every ref ever handed out names a
// live customer (the survivor of its merges) until that customer is erased,
// after which it names nobody (404); a start hinted with it is matched
// alike. Checked against a model over random
// chains of merges and erasures, on the real database.

let server: TestServer;
let calls: CallClient;
let apiKey = "";
let tenant: Tenant;
let store: CustomerStore;

beforeAll(async () => {
  server = await startTestServer();
  calls = createCallClient(server.url);
  const account = await createAccountWithKey(server.url, { kind: "test" });
  apiKey = account.apiKey;
  tenant = { accountId: account.accountId, mode: "test" };
  store = {
    db: server.context.database.db,
    defaultRegion: server.config.defaultRegion,
    erasures: server.context.erasures,
    forgetMe: server.context.forgetMe,
  };
});
afterAll(async () => {
  calls?.close();
  await server?.stop();
});

const CUSTOMERS = 5;
const step = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("merge" as const),
      into: fc.nat(CUSTOMERS - 1),
      from: fc.nat(CUSTOMERS - 1),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("erase" as const), who: fc.nat(CUSTOMERS - 1) }) },
);

const statusOf = async (work: () => Promise<unknown>) => {
  try {
    await work();
    return "ok";
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
};

test("merges keep every identifier and every ref resolves to a live customer or, once erased, to none", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { maxLength: 8 }), async (steps) => {
      const now = () => ({ now: new Date() });
      // Customer i starts with its own number and external id.
      const refs: string[] = [];
      const identifiers: string[][] = [];
      for (let i = 0; i < CUSTOMERS; i++) {
        const crm = randomUUID();
        const res = await calls.start("rest", apiKey, {
          call_id: `call-${randomUUID()}`,
          identity_hints: { external_ids: { crm_id: crm } },
        });
        refs.push(res.body.customer_ref);
        identifiers.push([`crm_id:${crm}`]);
      }
      // The model: each ref's group (the index whose customer survives), or "erased".
      const group: (number | "erased")[] = refs.map((_, i) => i);
      for (const s of steps) {
        if (s.kind === "erase") {
          const g = group[s.who];
          const outcome = await statusOf(() => eraseCustomer(store, tenant, refs[s.who], now()));
          expect(outcome).toBe(g === "erased" ? "not_found" : "ok");
          if (g !== "erased") for (let i = 0; i < CUSTOMERS; i++) if (group[i] === g) group[i] = "erased";
          continue;
        }
        const [into, from] = [group[s.into], group[s.from]];
        const outcome = await statusOf(() => mergeCustomers(store, tenant, refs[s.into], refs[s.from], now()));
        if (into === "erased" || from === "erased") expect(outcome).toBe("not_found");
        else if (into === from) expect(outcome).toBe("invalid_argument");
        else {
          expect(outcome).toBe("ok");
          for (let i = 0; i < CUSTOMERS; i++) if (group[i] === from) group[i] = into;
        }
      }
      for (let i = 0; i < CUSTOMERS; i++) {
        const g = group[i];
        // A start hinted with the ref is matched to the same customer, or to nobody once erased.
        const hinted = await calls.start("rest", apiKey, {
          call_id: `call-${randomUUID()}`,
          identity_hints: { customer_ref: refs[i] },
        });
        if (g === "erased") {
          expect(await statusOf(() => getCustomer(store, tenant, refs[i], now()))).toBe("not_found");
          expect(refs).not.toContain(hinted.body.customer_ref);
          continue;
        }
        expect(hinted.body.customer_ref).toBe(refs[g]);
        const record = await getCustomer(store, tenant, refs[i], now());
        expect(record.customerRef).toBe(refs[g]);
        const held = record.externalIds.map(([key, value]) => `${key}:${value}`);
        for (let j = 0; j < CUSTOMERS; j++)
          if (group[j] === g) expect(held).toEqual(expect.arrayContaining(identifiers[j]));
      }
    }),
    { numRuns: 15 },
  );
});
