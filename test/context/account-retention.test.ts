import type { DescMethodUnary } from "@bufbuild/protobuf";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AdminService } from "../../gen/callercontext/v1/admin_pb.ts";
import { createManualClock } from "../../src/domain/clock.ts";
import { sweepOnce } from "../../src/jobs/sweeper.ts";
import { type CallClient, createCallClient, forKey, TRANSPORTS } from "../helpers/call-client.ts";
import { createAccountWithKey, request } from "../helpers/rest-client.ts";
import { createRpcClient, type RpcClient } from "../helpers/rpc-client.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../helpers/test-server.ts";

// Each account sets how long its callers are remembered (7 to 365 days, 90 by default), through the admin
// API over REST and gRPC: the matching of a start and the retention sweep both follow the account's own figure.

const DAY = 24 * 60 * 60 * 1000;
const clock = createManualClock(new Date("2026-04-01T09:00:00.000Z"));
const setRetention = AdminService.method.setAccountRetention as unknown as DescMethodUnary;

let server: TestServer;
let rpc: RpcClient;
let calls: CallClient;

beforeAll(async () => {
  server = await startTestServer({ clock });
  rpc = createRpcClient(server.url);
  calls = createCallClient(server.url);
});
afterAll(async () => {
  rpc?.close();
  calls?.close();
  await server?.stop();
});

async function customerExists(ref: string): Promise<boolean> {
  const { rows } = await sql`select 1 from customers where id = ${ref}::uuid`.execute(server.context.database.db);
  return rows.length > 0;
}

describe.each(TRANSPORTS)("account retention over %s", (via) => {
  let n = 0;
  const next = (label: string) => `${via}-${label}-${++n}`;

  test("a new account remembers for 90 days", async () => {
    const { accountId } = await createAccountWithKey(server.url);
    const res = await request(server.url, "GET", `/admin/v1/accounts/${accountId}`, { token: ADMIN_TOKEN });
    expect(res.body.account.context_retention_days).toBe(90);
  });

  test("with a retention of 7 days a caller last seen 10 days ago is new; an account at 90 still knows theirs", async () => {
    const short = await createAccountWithKey(server.url);
    const long = await createAccountWithKey(server.url);
    const set = await rpc.call(via, setRetention, ADMIN_TOKEN, {
      account_id: short.accountId,
      context_retention_days: 7,
    });
    expect(set.status).toBe(200);
    expect(set.body.account.context_retention_days).toBe(7);

    const hints = { external_ids: { crm_id: next("crm") } };
    const first = {
      short: await forKey(calls, via, short.apiKey).start({ call_id: next("call"), identity_hints: hints }),
      long: await forKey(calls, via, long.apiKey).start({ call_id: next("call"), identity_hints: hints }),
    };
    await forKey(calls, via, short.apiKey).end({
      call_id: first.short.body.call_id,
      customer_ref: first.short.body.customer_ref,
      variables: { plan: "gold" },
    });

    clock.advance(6 * DAY);
    const within = await forKey(calls, via, short.apiKey).start({ call_id: next("call"), identity_hints: hints });
    expect(within.body.customer_ref).toBe(first.short.body.customer_ref);

    clock.advance(10 * DAY);
    const later = {
      short: await forKey(calls, via, short.apiKey).start({ call_id: next("call"), identity_hints: hints }),
      long: await forKey(calls, via, long.apiKey).start({ call_id: next("call"), identity_hints: hints }),
    };
    expect(later.short.status).toBe(200);
    expect(later.short.body.customer_ref).not.toBe(first.short.body.customer_ref);
    expect(later.short.body.identity.confidence).toBe(0);
    expect(later.short.body.variables).toEqual({});
    expect(later.long.body.customer_ref).toBe(first.long.body.customer_ref);
    expect(later.long.body.identity.sources).toContain("external_id");
  });

  test.each([
    ["6", 6],
    ["366", 366],
    ["0", 0],
  ])("a retention of %s days is refused with 400 naming context_retention_days", async (_, days) => {
    const { accountId } = await createAccountWithKey(server.url);
    const res = await rpc.call(via, setRetention, ADMIN_TOKEN, { account_id: accountId, context_retention_days: days });
    expect(res.status).toBe(400);
    if (via === "rest") expect(res.body.error).toBe("Bad Request");
    expect(res.body.message).toBe("Validation failed");
    expect(res.body.details.issues).toEqual([
      { path: ["context_retention_days"], message: "Must be an integer from 7 to 365" },
    ]);
  });

  test("an absent retention is refused with 400, not read as 0", async () => {
    const { accountId } = await createAccountWithKey(server.url);
    const res = await rpc.call(via, setRetention, ADMIN_TOKEN, { account_id: accountId });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: ["context_retention_days"], message: "Required" }]);
  });

  test("an unknown account is 404", async () => {
    const res = await rpc.call(via, setRetention, ADMIN_TOKEN, {
      account_id: "acct_missing",
      context_retention_days: 30,
    });
    expect(res.status).toBe(404);
  });
});

test("the sweeper deletes each account's customers by that account's own retention", async () => {
  const accounts = await Promise.all(
    [7, 30, 90].map(async (days) => {
      const account = await createAccountWithKey(server.url);
      const res = await rpc.call("rest", setRetention, ADMIN_TOKEN, {
        account_id: account.accountId,
        context_retention_days: days,
      });
      expect(res.status).toBe(200);
      const started = await forKey(calls, "rest", account.apiKey).start({
        call_id: `sweep-${days}`,
        identity_hints: { ani: "+14155550777" },
      });
      return { days, ref: started.body.customer_ref as string };
    }),
  );
  const sweep = () => sweepOnce(server.context.database.db, clock.now(), 1000, server.config.monthlyQuota);

  clock.advance(6 * DAY);
  await sweep();
  expect(await Promise.all(accounts.map((a) => customerExists(a.ref)))).toEqual([true, true, true]);

  clock.advance(4 * DAY);
  await sweep();
  expect(await Promise.all(accounts.map((a) => customerExists(a.ref)))).toEqual([false, true, true]);

  clock.advance(21 * DAY);
  await sweep();
  expect(await Promise.all(accounts.map((a) => customerExists(a.ref)))).toEqual([false, false, true]);
});
