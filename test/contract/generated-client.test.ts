import { randomUUID } from "node:crypto";
import createClient, { type Middleware } from "openapi-fetch";
import { beforeAll, describe, expect, test } from "vitest";
import type { paths } from "../../examples/rest/caller-context-api.ts";
import { setQuota } from "../helpers/admin-client.ts";
import { assertDocumentedResponse, openApiDocument } from "../helpers/openapi-contract.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// A client as a platform engineer would make one: types generated from
// gen/openapi.json by openapi-typescript (examples/rest/caller-context-api.ts,
// regenerated and compared in CI), requests by openapi-fetch. Every route of
// the public API is called through it (tsc checks each call against the
// generated types), and every answer is checked against the document: its
// status, its body's schema and a success's declared headers. The last test
// fails when the document gains a public operation that no test here calls.

const fixture = useTestServer();
const answered: string[] = [];
/** Operations called, as `METHOD /path/{template}`. */
const operationsCalled = new Set<string>();

const checkAgainstDocument: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    const text = await response.clone().text();
    const body = text === "" ? undefined : JSON.parse(text);
    assertDocumentedResponse(request.method, new URL(request.url), response.status, body, response.headers);
    answered.push(`${request.method} ${response.status}`);
    operationsCalled.add(`${request.method} ${schemaPath}`);
    return response;
  },
};

/** Every operation of the document outside the admin API, as `METHOD /path/{template}`. */
function publicOperations(): string[] {
  return Object.entries(openApiDocument.paths as Record<string, Record<string, unknown>>)
    .filter(([path]) => !path.startsWith("/admin/"))
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ["get", "put", "post", "delete", "patch"].includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();
}

function clientFor(apiKey: string) {
  const client = createClient<paths>({ baseUrl: fixture.server.url, headers: { authorization: `Bearer ${apiKey}` } });
  client.use(checkAgainstDocument);
  return client;
}

let client: ReturnType<typeof clientFor>;
let accountId: string;

beforeAll(async () => {
  const created = await createAccountWithKey(fixture.server.url);
  accountId = created.accountId;
  await setQuota(fixture.server.url, accountId, 100);
  client = clientFor(created.apiKey);
});

const ani = () => `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`;

async function startedCall(number: string) {
  const started = await client.POST("/v1/calls/start", {
    body: { call_id: `call-${randomUUID()}`, identity_hints: { ani: number } },
  });
  expect(started.response.status).toBe(200);
  return started.data!;
}

describe("a client generated from the OpenAPI document", () => {
  test("calls: start, identify, end with an Idempotency-Key (a replay answers the same), and usage", async () => {
    const call = await startedCall(ani());
    const identified = await client.POST("/v1/calls/identify", {
      body: { call_id: call.call_id, identity_hints: { external_ids: { crm_id: `C-${randomUUID()}` } } },
    });
    expect(identified.response.status).toBe(200);
    const end = () =>
      client.POST("/v1/calls/end", {
        params: { header: { "Idempotency-Key": `end-${call.call_id}` } },
        body: { call_id: call.call_id, customer_ref: call.customer_ref, intent: "billing", intent_status: "open" },
      });
    const first = await end();
    const replay = await end();
    expect([first.response.status, replay.response.status]).toEqual([200, 200]);
    expect(replay.data).toEqual(first.data);
    const usage = await client.GET("/v1/usage");
    expect(usage.data?.quota?.remaining).toBeTypeOf("number");
  });

  test("contact figures: a period's figures and their CSV, the days in the query", async () => {
    const query = { from: "2026-11-01", to: "2026-11-07" };
    const figures = await client.GET("/v1/analytics/contact-figures", { params: { query } });
    expect(figures.response.status).toBe(200);
    expect(figures.data?.by_day).toHaveLength(7);
    const csv = await client.GET("/v1/analytics/contact-figures/csv", { params: { query } });
    expect(csv.data?.csv).toMatch(/^row,name,calls,/);
  });

  test("customers: find by number in the query, read, merge, unlink by query, erase", async () => {
    const number = ani();
    const a = await startedCall(number);
    const b = await startedCall(ani());
    const found = await client.GET("/v1/customers", { params: { query: { ani: number } } });
    expect(found.data?.customers.map((customer) => customer.customer_ref)).toEqual([a.customer_ref]);
    const record = await client.GET("/v1/customers/{customer_ref}", {
      params: { path: { customer_ref: a.customer_ref } },
    });
    expect(record.data?.identifiers?.ani).toEqual([number]);
    const merged = await client.POST("/v1/customers/{customer_ref}/merge", {
      params: { path: { customer_ref: a.customer_ref } },
      body: { from: b.customer_ref },
    });
    expect(merged.response.status).toBe(200);
    const unlinked = await client.DELETE("/v1/customers/{customer_ref}/identifiers", {
      params: { path: { customer_ref: a.customer_ref }, query: { ani: number } },
    });
    expect(unlinked.data?.identifiers?.ani).not.toContain(number);
    const erased = await client.DELETE("/v1/customers/{customer_ref}", {
      params: { path: { customer_ref: a.customer_ref } },
    });
    expect(erased.response.status).toBe(200);
  });

  test("do not remember: forget a customer, and lift the mark by the number it covers", async () => {
    const number = ani();
    const call = await startedCall(number);
    const forgotten = await client.POST("/v1/customers/{customer_ref}/forget-me", {
      params: { path: { customer_ref: call.customer_ref } },
      body: {},
    });
    expect(forgotten.data).toEqual({ customer_ref: call.customer_ref, erased: true, identifiers_marked: 1 });
    const lifted = await client.POST("/v1/customers/forget-me/lift", { body: { ani: number } });
    expect(lifted.data).toEqual({ lifted: true, identifiers_unmarked: 1 });
  });

  test("errors come back in the documented shapes: 400 with issues, 404, 409, 422, 401", async () => {
    const invalid = await client.POST("/v1/calls/start", { body: { call_id: "", identity_hints: {} } });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error?.message).toBe("Validation failed");
    const missing = await client.GET("/v1/customers/{customer_ref}", {
      params: { path: { customer_ref: randomUUID() } },
    });
    expect(missing.response.status).toBe(404);
    const call = await startedCall(ani());
    const again = await client.POST("/v1/calls/start", {
      body: { call_id: call.call_id, identity_hints: { ani: ani() } },
    });
    expect(again.response.status).toBe(409);
    const key = `end-${randomUUID()}`;
    const end = (intent: string) =>
      client.POST("/v1/calls/end", {
        params: { header: { "Idempotency-Key": key } },
        body: { call_id: call.call_id, customer_ref: call.customer_ref, intent },
      });
    expect((await end("a")).response.status).toBe(200);
    expect((await end("b")).response.status).toBe(422);
    const stranger = clientFor("sk_test_not_a_key_0123456789");
    expect((await stranger.GET("/v1/usage")).response.status).toBe(401);
  });

  test("health, and a platform's webhook as JSON, as a form and as a GET", async () => {
    const health = await client.GET("/v1/health");
    expect(health.data?.status).toBe("healthy");
    const integration = await post(fixture.server.url, `/admin/v1/accounts/${accountId}/integrations`, ADMIN_TOKEN, {
      platform: "twilio_studio",
      name: "Studio",
    });
    const webhook_id = integration.body.integration.webhook_path.split("/").pop();
    const basic = `Basic ${Buffer.from(`studio:${integration.body.webhook_secret}`).toString("base64")}`;
    // The document declares the GET's fields as a form-style, exploded query; openapi-fetch needs telling.
    const studio = createClient<paths>({
      baseUrl: fixture.server.url,
      headers: { authorization: basic },
      querySerializer: { object: { style: "form", explode: true } },
    });
    studio.use(checkAgainstDocument);
    const fields = { event: "inbound", call_sid: `CA${randomUUID()}`, from: ani(), to: "+13105550100" };
    const asJson = await studio.POST("/v1/integrations/{webhook_id}", {
      params: { path: { webhook_id } },
      body: fields,
    });
    const asForm = await studio.POST("/v1/integrations/{webhook_id}", {
      params: { path: { webhook_id } },
      body: { ...fields, call_sid: `CA${randomUUID()}` },
      bodySerializer: (values) => new URLSearchParams(values as Record<string, string>).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    const asGet = await studio.GET("/v1/integrations/{webhook_id}", {
      params: { path: { webhook_id }, query: { fields: { ...fields, call_sid: `CA${randomUUID()}` } } },
    });
    expect([asJson, asForm, asGet].map((answer) => answer.response.status)).toEqual([200, 200, 200]);
    expect((asGet.data as { customer_ref?: string }).customer_ref).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("every answer above was checked against the document, and every public operation was called", () => {
    expect(answered.length).toBeGreaterThanOrEqual(22);
    expect(publicOperations().filter((operation) => !operationsCalled.has(operation))).toEqual([]);
  });
});
