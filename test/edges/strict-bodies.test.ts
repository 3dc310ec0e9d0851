import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { status } from "@grpc/grpc-js";
import { beforeAll, describe, expect, test } from "vitest";
import { AdminService } from "../../gen/callercontext/v1/admin_pb.ts";
import { ValidationFailureSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { callUnary, createGrpcClient, grpcErrorDetails } from "../helpers/grpc-client.ts";
import { createAccountWithKey, request } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// Every admin route refuses a body it cannot take as sent (a wrong type, an
// unknown field, malformed JSON, a null where a value is required (null is "not
// given"; optional fields take their default), a number
// out of range) with 400 and every problem listed, before anything runs: the
// database is the same afterwards. Connect and gRPC refuse the same requests.

const fixture = useTestServer();
let accountId: string;
let keyId: string;

beforeAll(async () => {
  ({ accountId, keyId } = await createAccountWithKey(fixture.server.url));
});

async function snapshot() {
  const { db } = fixture.server.context.database;
  return {
    accounts: await db.selectFrom("accounts").selectAll().orderBy("id").execute(),
    keys: await db.selectFrom("api_keys").selectAll().orderBy("id").execute(),
  };
}

const MALFORMED = ['{"name":', "[1]", '"text"', "{'a':1}", "{} {}"];

const HOSTILE: Record<string, { path: () => string; bodies: unknown[] }> = {
  "POST /admin/v1/accounts": {
    path: () => "/admin/v1/accounts",
    bodies: [
      { name: "x", quota: "abc", bogus: 1 },
      { name: "x", quota: "5000" },
      { name: 5 },
      { name: null },
      { name: "x", quota: 1e20 },
      { name: "x", quota: 4_294_967_295 },
      { name: "x", quota: -1 },
      { name: "x", quota: 1.5 },
      { name: "x", tier: 2 },
      { name: "x", tier: "platinum" },
    ],
  },
  "POST /admin/v1/accounts/{account_id}/quota": {
    path: () => `/admin/v1/accounts/${accountId}/quota`,
    bodies: [
      { quota_remaining: "5000" },
      { quota_remaining: null },
      {},
      { quota_remaining: 1e20 },
      { quota_remaining: 2_147_483_648 },
      { quota_remaining: 5000, bogus: true },
      { quotaRemaining: 5000 },
    ],
  },
  "POST /admin/v1/accounts/{account_id}/tier": {
    path: () => `/admin/v1/accounts/${accountId}/tier`,
    bodies: [{ tier: "platinum" }, { tier: 3 }, { tier: null }, {}, { tier: "scale", extra: 1 }, { tier: ["scale"] }],
  },
  "POST /admin/v1/accounts/{account_id}/keys": {
    path: () => `/admin/v1/accounts/${accountId}/keys`,
    bodies: [
      { kind: "live" },
      { kind: 1 },
      { kind: "prod", scopes: ["all"] },
      { kind: { value: "prod" } },
      { account_id: "acct_other" },
    ],
  },
  "POST /admin/v1/keys/{key_id}/revoke": {
    path: () => `/admin/v1/keys/${keyId}/revoke`,
    bodies: [{ bogus: 1 }, { key_id: 5 }, { revoked: "yes" }],
  },
};

describe("REST: every admin route answers a hostile body 400 with details.issues and changes nothing", () => {
  test.each(Object.keys(HOSTILE))("%s", async (route) => {
    const { path, bodies } = HOSTILE[route];
    const before = await snapshot();
    const sent = [...bodies.map((body) => JSON.stringify(body)), ...MALFORMED];
    for (const rawBody of sent) {
      const res = await request(fixture.server.url, "POST", path(), { rawBody, token: ADMIN_TOKEN });
      expect(res.status, rawBody).toBe(400);
      expect(res.body.error).toBe("Bad Request");
      expect(res.body.message).toBe("Validation failed");
      expect(res.body.details.issues.length, rawBody).toBeGreaterThan(0);
      for (const issue of res.body.details.issues) {
        expect(issue).toEqual({ path: expect.any(Array), message: expect.any(String) });
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  test("null is 'not given' (proto3 JSON): an optional enum takes its default, a required field is refused", async () => {
    const key = await request(fixture.server.url, "POST", `/admin/v1/accounts/${accountId}/keys`, {
      body: { kind: null },
      token: ADMIN_TOKEN,
    });
    expect([key.status, key.body.kind]).toEqual([200, "test"]);
    const account = await request(fixture.server.url, "POST", "/admin/v1/accounts", {
      body: { name: "Null tier", tier: null },
      token: ADMIN_TOKEN,
    });
    expect([account.status, account.body.account.tier]).toEqual([200, "free"]);
    const tier = await request(fixture.server.url, "POST", `/admin/v1/accounts/${accountId}/tier`, {
      body: { tier: null },
      token: ADMIN_TOKEN,
    });
    expect([tier.status, tier.body.details?.issues?.[0]?.path]).toEqual([400, ["tier"]]);
  });

  test('the quota sent as the string "5000" is refused, not stored as 0', async () => {
    const res = await request(fixture.server.url, "POST", `/admin/v1/accounts/${accountId}/quota`, {
      body: { quota_remaining: "5000" },
      token: ADMIN_TOKEN,
    });
    expect(res.body.details.issues).toEqual([
      { path: ["quota_remaining"], message: "Expected a non-negative integer" },
    ]);
  });

  test("a body without a valid admin token is 401, not 400: the body is read only for the operator", async () => {
    const res = await request(fixture.server.url, "POST", "/admin/v1/accounts", { rawBody: "{", token: "wrong" });
    expect(res.status).toBe(401);
  });
});

describe("Connect and gRPC refuse the same admin requests and change nothing", () => {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  test("Connect JSON: a wrong type, an unknown field, a missing required quota are INVALID_ARGUMENT", async () => {
    const before = await snapshot();
    const url = `${fixture.server.url}/callercontext.v1.AdminService/SetAccountQuota`;
    for (const body of [
      { accountId, quotaRemaining: "abc" },
      { accountId, quotaRemaining: 10, bogus: 1 },
      { accountId },
      { accountId, quotaRemaining: 4_294_967_295 },
      { accountId, quotaRemaining: -1 },
    ]) {
      const res = await fetch(url, {
        method: "POST",
        headers: { ...admin, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).code).toBe("invalid_argument");
    }
    expect(await snapshot()).toEqual(before);
  });

  test("gRPC: a quota that is absent or beyond what the store keeps is INVALID_ARGUMENT", async () => {
    const before = await snapshot();
    const client = createGrpcClient(fixture.server.url);
    try {
      for (const input of [{ accountId }, { accountId, quotaRemaining: 4_000_000_000 }]) {
        const result = await callUnary(client, AdminService.method.setAccountQuota, input, admin);
        expect(result.error?.code).toBe(status.INVALID_ARGUMENT);
        const [failure] = grpcErrorDetails(result.error, ValidationFailureSchema);
        expect(failure.issues[0].path).toEqual(["quota_remaining"]);
      }
    } finally {
      client.close();
    }
    expect(await snapshot()).toEqual(before);
  });

  test("a generated Connect client with valid input still gets its answer", async () => {
    const client = createClient(
      AdminService,
      createConnectTransport({ baseUrl: fixture.server.url, httpVersion: "1.1" }),
    );
    const res = await client.setAccountQuota({ accountId, quotaRemaining: 777 }, { headers: admin });
    expect(res.account?.quotaRemaining).toBe(777);
    const error = await client.setAccountQuota({ accountId }, { headers: admin }).catch((e) => e);
    expect(ConnectError.from(error).code).toBe(Code.InvalidArgument);
  });
});
