import { createHash, randomUUID } from "node:crypto";
import type { DescMethodUnary } from "@bufbuild/protobuf";
import type * as grpc from "@grpc/grpc-js";
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AdminService } from "../../gen/callercontext/v1/admin_pb.ts";
import { randomBase62 } from "../../src/domain/api-key.ts";
import { createKey, revokeKey } from "../helpers/admin-client.ts";
import { type CallClient, createCallClient, startBody, TRANSPORTS, uniqueCallId } from "../helpers/call-client.ts";
import { callUnary, createGrpcClient } from "../helpers/grpc-client.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../helpers/test-server.ts";

// API keys and the admin token: never logged, stored only as hashes, the admin
// API closed to everything but its token, and keys of the documented format.

let server: TestServer;
let calls: CallClient;
let grpcClient: grpc.Client;
let account: { accountId: string; apiKey: string; keyId: string };

beforeAll(async () => {
  server = await startTestServer();
  calls = createCallClient(server.url);
  grpcClient = createGrpcClient(server.url);
  account = await createAccountWithKey(server.url, { kind: "test" });
});
afterAll(async () => {
  calls?.close();
  grpcClient?.close();
  await server?.stop();
});

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
/** The random part of a key, after sk_test_ or sk_prod_. */
const secretPart = (key: string) => key.replace(/^sk_(test|prod)_/, "");
const INVALID_ADMIN = { error: "Unauthorized", message: "Invalid or missing admin token" };

describe("secrets never reach the log", () => {
  test("a workload of keys and admin calls, right and wrong, over REST and gRPC logs no key, token or body", async () => {
    const secrets: string[] = [ADMIN_TOKEN];
    const bodyValues: string[] = [];
    const created: string[] = [account.apiKey];

    // Keys created over the admin API, REST and gRPC.
    created.push((await createKey(server.url, account.accountId, "prod")).apiKey);
    const overGrpc = await callUnary(
      grpcClient,
      AdminService.method.createKey,
      { accountId: account.accountId, kind: "prod" },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    expect(overGrpc.error).toBeUndefined();
    created.push(overGrpc.response!.apiKey);
    const revoked = await createKey(server.url, account.accountId, "test");
    created.push(revoked.apiKey);
    expect((await revokeKey(server.url, revoked.keyId)).status).toBe(200);

    // Valid keys over both transports, with body content that must not be logged either.
    for (const via of TRANSPORTS) {
      for (const apiKey of created.slice(0, 3)) {
        const marker = `body-marker-${randomUUID()}`;
        const crm = `crm-marker-${randomUUID()}`;
        bodyValues.push(marker, crm);
        const callId = uniqueCallId(`cred-${via}`);
        const started = await calls.start(via, apiKey, { call_id: callId, identity_hints: { external_ids: { crm } } });
        expect(started.status).toBe(200);
        const ended = await calls.end(via, apiKey, {
          call_id: callId,
          customer_ref: started.body.customer_ref,
          intent: marker,
          variables: { note: marker },
        });
        expect(ended.status).toBe(200);
        // A refused body: its content is not logged with the 400.
        const refused = await calls.end(via, apiKey, { call_id: callId, variables: { card: "4111 1111 1111 1111" } });
        expect(refused.status).toBe(400);
        bodyValues.push("4111 1111 1111 1111");
      }
    }

    // Revoked, malformed and wrong keys, over both transports.
    const wrong = [`sk_test_${randomBase62(40)}`, `sk_prod_${randomBase62(40)}`];
    secrets.push(...wrong);
    const refusedKeys = [revoked.apiKey, ...wrong, `${account.apiKey}x`, account.apiKey.slice(0, 20)];
    for (const via of TRANSPORTS) {
      for (const apiKey of refusedKeys) {
        expect((await calls.start(via, apiKey, startBody())).status).toBe(401);
      }
    }
    for (const authorization of [`Basic ${account.apiKey}`, account.apiKey, `Bearer\t${account.apiKey}`]) {
      const res = await request(server.url, "POST", "/v1/calls/start", {
        body: startBody(),
        headers: { authorization },
      });
      expect(res.status).toBe(401);
    }
    // A key where no key belongs: in the query string and in a header of its own.
    const inUrl = await request(server.url, "POST", `/v1/calls/start?api_key=${account.apiKey}`, { body: startBody() });
    expect(inUrl.status).toBe(401);
    const inHeader = await request(server.url, "POST", "/v1/calls/start", {
      body: startBody(),
      headers: { "x-api-key": account.apiKey },
    });
    expect(inHeader.status).toBe(401);

    // The admin API with its token and with wrong ones, over both transports.
    const wrongTokens = [`${ADMIN_TOKEN}x`, ADMIN_TOKEN.slice(0, -1), `adm_${randomBase62(40)}`];
    secrets.push(...wrongTokens);
    const accountPath = `/admin/v1/accounts/${account.accountId}`;
    expect((await request(server.url, "GET", accountPath, { token: ADMIN_TOKEN })).status).toBe(200);
    for (const token of wrongTokens) {
      expect((await request(server.url, "GET", accountPath, { token })).status).toBe(401);
      const refused = await callUnary(
        grpcClient,
        AdminService.method.getAccount,
        { accountId: account.accountId },
        { authorization: `Bearer ${token}` },
      );
      expect(refused.error?.code).toBe(status.UNAUTHENTICATED);
    }
    const admitted = await callUnary(
      grpcClient,
      AdminService.method.listKeys,
      { accountId: account.accountId },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    expect(admitted.error).toBeUndefined();

    for (const key of created) secrets.push(key, secretPart(key));
    for (const key of wrong) secrets.push(secretPart(key));
    const log = server.logLines.join("\n");
    // One line per request at least, the refused ones and the gRPC ones among them.
    expect(server.logLines.length).toBeGreaterThan(40);
    expect(log).toContain('"status":401');
    expect(log).toContain("/callercontext.v1.CallerContextService/StartCall");
    expect(log).toContain("/callercontext.v1.AdminService/CreateKey");
    for (const secret of secrets)
      expect(log.includes(secret), `a secret in the log: ${secret.slice(0, 12)}…`).toBe(false);
    for (const value of bodyValues) expect(log.includes(value), `body content in the log: ${value}`).toBe(false);
  });
});

describe("keys are stored only as hashes", () => {
  test("no column of api_keys holds a secret, and secret_hash is the SHA-256 hex of it", async () => {
    const keys = [
      { keyId: account.keyId, apiKey: account.apiKey },
      await createKey(server.url, account.accountId, "prod"),
      await createKey(server.url, account.accountId, "test"),
    ];
    const rows = await server.context.database.db.selectFrom("api_keys").selectAll().execute();
    for (const { keyId, apiKey } of keys) {
      const row = rows.find((candidate) => candidate.id === keyId);
      expect(row?.secret_hash).toBe(sha256(apiKey));
      for (const candidate of rows) {
        for (const [column, value] of Object.entries(candidate)) {
          const stored = value instanceof Date ? value.toISOString() : String(value);
          expect(stored.includes(secretPart(apiKey)), `api_keys.${column} holds a secret`).toBe(false);
        }
      }
    }
    // The admin token is not stored at all when it comes from ADMIN_TOKEN, hashed or not.
    const settings = await server.context.database.db.selectFrom("settings").selectAll().execute();
    for (const setting of settings) {
      expect(setting.value).not.toContain(ADMIN_TOKEN);
      expect(setting.value).not.toBe(sha256(ADMIN_TOKEN));
    }
  });
});

describe("the admin API refuses everything without its token", () => {
  /** Every AdminService method, as a valid request that would change or reveal something. */
  function adminCalls(accountId: string, keyId: string) {
    const m = AdminService.method;
    return [
      { method: m.createAccount, rest: ["POST", "/admin/v1/accounts", { name: "Intruder", tier: "scale", quota: 9 }] },
      { method: m.getAccount, rest: ["GET", `/admin/v1/accounts/${accountId}`, undefined] },
      { method: m.setAccountQuota, rest: ["POST", `/admin/v1/accounts/${accountId}/quota`, { quota_remaining: 1 }] },
      { method: m.setAccountTier, rest: ["POST", `/admin/v1/accounts/${accountId}/tier`, { tier: "scale" }] },
      { method: m.createKey, rest: ["POST", `/admin/v1/accounts/${accountId}/keys`, { kind: "prod" }] },
      { method: m.listKeys, rest: ["GET", `/admin/v1/accounts/${accountId}/keys`, undefined] },
      { method: m.revokeKey, rest: ["POST", `/admin/v1/keys/${keyId}/revoke`, {}] },
    ] as const;
  }
  const grpcInit = (name: string, accountId: string, keyId: string) =>
    ({
      createAccount: { name: "Intruder", tier: "scale", quota: 9 },
      getAccount: { accountId },
      setAccountQuota: { accountId, quotaRemaining: 1 },
      setAccountTier: { accountId, tier: "scale" },
      createKey: { accountId, kind: "prod" },
      listKeys: { accountId },
      revokeKey: { keyId },
    })[name];

  async function snapshot() {
    const { db } = server.context.database;
    const accounts = await db.selectFrom("accounts").selectAll().orderBy("id").execute();
    const keys = await db.selectFrom("api_keys").selectAll().orderBy("id").execute();
    return JSON.stringify({ accounts, keys });
  }

  test("no header, a wrong token or a valid API key: 401 over REST and UNAUTHENTICATED over gRPC, nothing changed", async () => {
    const target = await createAccountWithKey(server.url, { tier: "free", quota: 50 });
    const before = await snapshot();
    const credentials: [string, string | undefined][] = [
      ["no header", undefined],
      ["a wrong token", "Bearer not-the-admin-token"],
      ["the admin token with a character more", `Bearer ${ADMIN_TOKEN}x`],
      ["the admin token without the Bearer scheme", ADMIN_TOKEN],
      ["a valid API key", `Bearer ${target.apiKey}`],
    ];
    let refusals = 0;
    for (const { method, rest } of adminCalls(target.accountId, target.keyId)) {
      for (const [label, authorization] of credentials) {
        const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
        const [verb, path, body] = rest;
        const res = await request(server.url, verb, path, { body, headers });
        expect([res.status, res.body], `REST ${method.name} with ${label}`).toEqual([401, INVALID_ADMIN]);
        const overGrpc = await callUnary(
          grpcClient,
          method as DescMethodUnary,
          grpcInit(method.localName, target.accountId, target.keyId) as never,
          headers,
        );
        expect(overGrpc.error?.code, `gRPC ${method.name} with ${label}`).toBe(status.UNAUTHENTICATED);
        expect(overGrpc.response).toBeUndefined();
        refusals += 2;
      }
    }
    expect(refusals).toBe(7 * credentials.length * 2);
    expect(await snapshot()).toBe(before);
    // The key the refused RevokeKey named still works.
    expect((await calls.start("rest", target.apiKey, startBody())).status).toBe(200);
  });
});

describe("key format", () => {
  test("100 created keys match sk_(test|prod)_ and 32 or more base62 characters, and are all distinct", async () => {
    const created: string[] = [];
    for (let i = 0; i < 100; i++) {
      const { apiKey } = await createKey(server.url, account.accountId, i % 2 === 0 ? "test" : "prod");
      expect(apiKey).toMatch(i % 2 === 0 ? /^sk_test_[0-9A-Za-z]{32,}$/ : /^sk_prod_[0-9A-Za-z]{32,}$/);
      created.push(apiKey);
    }
    expect(new Set(created).size).toBe(100);
    expect(new Set(created.map(secretPart)).size).toBe(100);
  });
});

test("a key's secret is shown once, when it is created: the key listing does not repeat it", async () => {
  const res = await post(server.url, `/admin/v1/accounts/${account.accountId}/keys`, ADMIN_TOKEN, { kind: "test" });
  expect(res.status).toBe(200);
  expect(res.body.api_key).toMatch(/^sk_test_/);
  const listed = await request(server.url, "GET", `/admin/v1/accounts/${account.accountId}/keys`, {
    token: ADMIN_TOKEN,
  });
  expect(JSON.stringify(listed.body)).not.toContain(secretPart(res.body.api_key));
});

describe("admin input", () => {
  test("an account name with a NUL character is a 400, not a 500", async () => {
    const res = await request(server.url, "POST", "/admin/v1/accounts", {
      token: ADMIN_TOKEN,
      body: { name: "a\u0000b" },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: ["name"], message: expect.stringContaining("NUL") }]);
  });
});
