import { describe, expect, test } from "vitest";
import { post, request } from "../helpers/rest-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

const fixture = useTestServer();

const start = (body: unknown) => post(fixture.server.url, "/v1/calls/start", fixture.apiKey, body);
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("POST /v1/calls/start 200", () => {
  test("a new caller gets a fresh customer_ref and exactly the rule-4 response", async () => {
    const res = await start({ call_id: "new-1", identity_hints: { ani: "+14155550100" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      call_id: "new-1",
      customer_ref: expect.stringMatching(/^[0-9a-f-]{36}$/),
      call_start: expect.stringMatching(ISO_MS),
      identity: { confidence: 0, level: "low", sources: [], recommendation: "ignore" },
      open_intents: [],
      variables: {},
    });
  });

  test("a caller known by external id gets the stored context back", async () => {
    const first = await start({ call_id: "ctx-1", identity_hints: { external_ids: { crm_id: "C-1" } } });
    const end = await post(fixture.server.url, "/v1/calls/end", fixture.apiKey, {
      call_id: "ctx-1",
      customer_ref: first.body.customer_ref,
      intent: "billing_question",
      intent_status: "open",
      variables: { preferred_name: "Ann" },
    });
    expect(end.status).toBe(200);
    const second = await start({ call_id: "ctx-2", identity_hints: { external_ids: { crm_id: "C-1" } } });
    expect(second.status).toBe(200);
    expect(second.body.customer_ref).toBe(first.body.customer_ref);
    expect(second.body.open_intents).toEqual([{ intent: "billing_question", status: "open", attempt_count: 1 }]);
    expect(second.body.variables).toEqual({ preferred_name: { value: "Ann", source: null, ttl_seconds: 2592000 } });
  });

  test("external_ids with a mobile ani scores 0.9 or more (rule 6)", async () => {
    const first = await start({
      call_id: "r6-1",
      identity_hints: { ani: "+14155550106", external_ids: { crm_id: "C-6" } },
    });
    await post(fixture.server.url, "/v1/calls/end", fixture.apiKey, {
      call_id: "r6-1",
      customer_ref: first.body.customer_ref,
    });
    const res = await start({
      call_id: "r6-2",
      identity_hints: { ani: "+14155550106", external_ids: { crm_id: "C-6" } },
      telco: { line_type: "mobile" },
    });
    expect(res.body.identity.confidence).toBeGreaterThanOrEqual(0.9);
    expect(res.body.identity.sources).toEqual(expect.arrayContaining(["ani:mobile", "external_id"]));
  });

  test("without telco data a matched number counts as ani:unknown (rule 7)", async () => {
    await start({ call_id: "r7-1", identity_hints: { ani: "+14155550107" } });
    const res = await start({ call_id: "r7-2", identity_hints: { ani: "+14155550107" } });
    expect(res.body.identity.sources).toContain("ani:unknown");
  });
});

describe("POST /v1/calls/start 400", () => {
  test("identity_hints without an identifier names the path [identity_hints] (rule 1)", async () => {
    const res = await start({ call_id: "bad-1", identity_hints: { dnis: "+18005550100" } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Bad Request");
    expect(res.body.message).toBe("Validation failed");
    expect(res.body.details.issues).toContainEqual({ path: ["identity_hints"], message: expect.any(String) });
  });

  test("a missing call_id names the path [call_id] (rule 2)", async () => {
    const res = await start({ identity_hints: { ani: "+14155550100" } });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: ["call_id"], message: "Required" }]);
  });

  test("a call_id over 128 characters is refused", async () => {
    const res = await start({ call_id: "x".repeat(129), identity_hints: { ani: "+14155550100" } });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: ["call_id"], message: "Must be at most 128 characters" }]);
  });

  test("a wrong type names the field", async () => {
    const res = await start({ call_id: 42, identity_hints: { ani: "+14155550100" } });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: ["call_id"], message: "Expected a string" }]);
  });

  test("an invalid line_type is an invalid enum value", async () => {
    const res = await start({ call_id: "e-1", identity_hints: { ani: "+14155550100" }, telco: { line_type: "fax" } });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toEqual(["telco", "line_type"]);
  });

  test("malformed JSON", async () => {
    const res = await request(fixture.server.url, "POST", "/v1/calls/start", {
      token: fixture.apiKey,
      rawBody: '{"call_id": ',
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Validation failed");
    expect(res.body.details.issues[0]).toEqual({ path: [], message: "Malformed JSON" });
  });

  test("a body that is not an object", async () => {
    const res = await request(fixture.server.url, "POST", "/v1/calls/start", {
      token: fixture.apiKey,
      rawBody: "[1,2]",
    });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0]).toEqual({ path: [], message: "Expected a JSON object" });
  });
});

describe("POST /v1/calls/start 409", () => {
  test("a call_id that already exists names the call_id", async () => {
    const body = { call_id: "dup-1", identity_hints: { ani: "+14155550100" } };
    expect((await start(body)).status).toBe(200);
    const res = await start(body);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "Conflict", message: expect.stringContaining("dup-1") });
  });

  test("20 simultaneous starts with one call_id: exactly one 200", async () => {
    const body = { call_id: "race-1", identity_hints: { ani: "+14155550199" } };
    const statuses = (await Promise.all(Array.from({ length: 20 }, () => start(body)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
  });
});

describe("POST /v1/calls/start transport errors", () => {
  test("415 for a body that is not application/json", async () => {
    const res = await request(fixture.server.url, "POST", "/v1/calls/start", {
      token: fixture.apiKey,
      rawBody: "call_id=1",
      headers: { "content-type": "text/plain" },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: "Unsupported Media Type", message: expect.any(String) });
  });

  test("413 for a body over 1 MiB", async () => {
    const res = await request(fixture.server.url, "POST", "/v1/calls/start", {
      token: fixture.apiKey,
      rawBody: JSON.stringify({ call_id: "big", pad: "x".repeat(1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: "Payload Too Large", message: expect.any(String) });
  });

  test("404 in the error shape for an unknown route", async () => {
    const res = await request(fixture.server.url, "GET", "/v1/nothing-here");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Not Found", message: expect.any(String) });
  });
});
