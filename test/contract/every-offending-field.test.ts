import { randomUUID } from "node:crypto";
import { describe, expect, test } from "vitest";
import { post } from "../helpers/rest-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// One 400 names every offending field of a call request: what the JSON could
// not be decoded into (a wrong type, a value outside an enum, an unknown field)
// together with what the request's own rules refuse (a missing call_id, hints
// with no identifier), so a client fixes its body in one round trip. The parts
// that were decoded are never acted on: a refused start starts nothing.

const fixture = useTestServer();

const issuesOf = (body: { details?: { issues?: { path: string[]; message: string }[] } }) =>
  body.details?.issues?.map((issue) => `${issue.path.join(".")}: ${issue.message}`);

describe("REST: a body with wrong types and missing fields", () => {
  test("start: the wrong line_type and the missing call_id in one 400", async () => {
    const refused = await post(fixture.server.url, "/v1/calls/start", fixture.apiKey, {
      identity_hints: { ani: "+14155550100" },
      telco: { line_type: "pigeon" },
    });
    expect(refused.status).toBe(400);
    expect(issuesOf(refused.body)).toEqual([
      "telco.line_type: Expected one of: mobile, landline, voip, unknown",
      "call_id: Required",
    ]);
  });

  test("start: a field of the wrong type is named once, not again as missing or as leaving its object empty", async () => {
    const callId = `every-${randomUUID()}`;
    const refused = await post(fixture.server.url, "/v1/calls/start", fixture.apiKey, {
      call_id: callId,
      identity_hints: { ani: 5 },
      telco: { attestation: "Q" },
      colour: "blue",
    });
    expect(refused.status).toBe(400);
    expect(issuesOf(refused.body)).toEqual([
      "identity_hints.ani: Expected a string",
      "colour: Unknown field",
      "telco.attestation: Expected one of: A, B, C, failed, none",
    ]);
    // The call_id was valid, and nothing was started with it.
    const started = await post(fixture.server.url, "/v1/calls/start", fixture.apiKey, {
      call_id: callId,
      identity_hints: { ani: "+14155550100" },
    });
    expect(started.status).toBe(200);
  });

  test("end: the wrong intent_status and variables, the missing call_id and customer_ref in one 400", async () => {
    const refused = await post(fixture.server.url, "/v1/calls/end", fixture.apiKey, {
      intent_status: "maybe",
      variables: 5,
    });
    expect(refused.status).toBe(400);
    expect(issuesOf(refused.body)).toEqual([
      "intent_status: Expected one of: open, resolved",
      "variables: Expected an object",
      "call_id: Required",
      "customer_ref: Either customer_ref or identity_hints is required",
    ]);
  });

  test("identify: the wrong ani and the missing call_id in one 400", async () => {
    const refused = await post(fixture.server.url, "/v1/calls/identify", fixture.apiKey, {
      identity_hints: { ani: 5 },
    });
    expect(refused.status).toBe(400);
    expect(issuesOf(refused.body)).toEqual(["identity_hints.ani: Expected a string", "call_id: Required"]);
  });

  test("a body that is not JSON is named once, with nothing about its fields", async () => {
    const refused = await fetch(new URL("/v1/calls/start", fixture.server.url), {
      method: "POST",
      headers: { authorization: `Bearer ${fixture.apiKey}`, "content-type": "application/json" },
      body: '{"call_id": ',
    });
    expect(refused.status).toBe(400);
    expect(issuesOf(await refused.json())).toEqual([": Malformed JSON"]);
  });
});

describe("REST: customer and analytics routes name what could not be decoded and what their rules refuse, in one 400", () => {
  const get = (path: string) =>
    fetch(new URL(path, fixture.server.url), { headers: { authorization: `Bearer ${fixture.apiKey}` } });

  test("list: an unknown parameter together with no identifier at all", async () => {
    const refused = await get("/v1/customers?colour=blue");
    expect(refused.status).toBe(400);
    expect(issuesOf(await refused.json())).toEqual(["colour: Unknown field", ": Give exactly one of ani, external_id"]);
  });

  test("unlink: an unknown parameter together with an external_id that is not key:value", async () => {
    const refused = await fetch(
      new URL(`/v1/customers/${randomUUID()}/identifiers?external_id=nocolon&colour=blue`, fixture.server.url),
      { method: "DELETE", headers: { authorization: `Bearer ${fixture.apiKey}` } },
    );
    expect(refused.status).toBe(400);
    expect(issuesOf(await refused.json())).toEqual(["colour: Unknown field", "external_id: Expected key:value"]);
  });

  test("lift: a field of the wrong type together with both identifiers given", async () => {
    const refused = await post(fixture.server.url, "/v1/customers/forget-me/lift", fixture.apiKey, {
      ani: "+14155550100",
      external_id: "crm:1",
      colour: 5,
    });
    expect(refused.status).toBe(400);
    expect(issuesOf(refused.body)).toEqual(["colour: Unknown field", ": Give exactly one of ani, external_id"]);
  });

  for (const path of ["/v1/analytics/contact-figures", "/v1/analytics/contact-figures/csv"]) {
    test(`contact figures (${path}): an unknown parameter together with a from that is not a day`, async () => {
      const refused = await get(`${path}?from=yesterday&to=2026-11-01&colour=blue`);
      expect(refused.status).toBe(400);
      expect(issuesOf(await refused.json())).toEqual(["colour: Unknown field", "from: Must be a UTC day, YYYY-MM-DD"]);
    });
  }

  test("merge: an unknown field together with the missing from, and nothing merged", async () => {
    const refused = await post(fixture.server.url, `/v1/customers/${randomUUID()}/merge`, fixture.apiKey, {
      colour: "blue",
    });
    expect(refused.status).toBe(400);
    expect(issuesOf(refused.body)).toEqual(["colour: Unknown field", "from: Required"]);
  });
});

describe("Connect JSON: what could not be decoded and what the rules refuse, in one invalid_argument", () => {
  const connect = async (path: string, body: string, key = fixture.apiKey) => {
    const response = await fetch(new URL(path, fixture.server.url), {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body,
    });
    const answer = await response.json();
    const issues = answer.details?.[0]?.debug?.issues?.map(
      (issue: { path?: string[]; message: string }) => `${(issue.path ?? []).join(".")}: ${issue.message}`,
    );
    return { status: response.status, code: answer.code, issues };
  };
  const START = "/callercontext.v1.CallerContextService/StartCall";

  test("start: a line type outside its enum and the missing call_id", async () => {
    const refused = await connect(START, '{"identityHints": {"ani": "+14155550100"}, "telco": {"lineType": "pigeon"}}');
    expect(refused).toEqual({
      status: 400,
      code: "invalid_argument",
      issues: [
        "telco.line_type: Expected one of: LINE_TYPE_MOBILE, LINE_TYPE_LANDLINE, LINE_TYPE_VOIP, LINE_TYPE_UNKNOWN",
        "call_id: Required",
      ],
    });
  });

  test("start: a field of the wrong type and an unknown field, and nothing started", async () => {
    const callId = `connect-${randomUUID()}`;
    const refused = await connect(START, JSON.stringify({ callId, identityHints: { ani: 5 }, colour: "blue" }));
    expect(refused.issues).toEqual(["identity_hints.ani: Expected a string", "colour: Unknown field"]);
    const started = await connect(START, JSON.stringify({ callId, identityHints: { ani: "+14155550100" } }));
    expect(started.status).toBe(200);
  });

  test("list customers: an unknown field together with no identifier", async () => {
    const refused = await connect("/callercontext.v1.CustomerService/ListCustomers", '{"colour": 1}');
    expect(refused.issues).toEqual(["colour: Unknown field", ": Give exactly one of ani, external_id"]);
  });

  test("contact figures: an unknown field together with the missing to", async () => {
    const refused = await connect(
      "/callercontext.v1.CallerContextService/GetContactFigures",
      '{"from": "2026-11-01", "colour": 1}',
    );
    expect(refused.issues).toEqual(["colour: Unknown field", "to: Required"]);
  });

  test("a caller without a valid key learns nothing about the body", async () => {
    const refused = await connect(START, '{"colour": 1}', "sk_test_not_a_key");
    expect(refused).toMatchObject({ status: 401, code: "unauthenticated", issues: undefined });
  });
});

describe("REST and gRPC: every rule a decoded message breaks, in one answer", () => {
  for (const via of ["grpc", "rest"] as const) {
    test(`start with no call_id, no identifier and an attestation outside its set (${via})`, async () => {
      const refused = await fixture.calls.start(via, fixture.apiKey, { telco: { attestation: "Q" } });
      expect(refused.status).toBe(400);
      expect(refused.body.details?.issues?.map((issue: { path: string[] }) => issue.path.join("."))).toEqual([
        "call_id",
        "identity_hints",
        "telco.attestation",
      ]);
    });
  }
});
