import { randomUUID } from "node:crypto";
import twilio from "twilio";
import { beforeAll, describe, expect, test } from "vitest";
import { setQuota } from "../helpers/admin-client.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// Twilio Studio's Make HTTP Request widget configured as docs/integrations.md
// says: the URL with its Basic credential (sent once the server challenges),
// or Twilio's own signature with the account's Auth Token, as a form (the
// widget's default), JSON or GET.

const AUTH_TOKEN = "0123456789abcdef0123456789abcdef";
const fixture = useTestServer();
let url: URL;
let secret: string;

beforeAll(async () => {
  const { accountId } = await createAccountWithKey(fixture.server.url);
  await setQuota(fixture.server.url, accountId, 100);
  const created = await post(fixture.server.url, `/admin/v1/accounts/${accountId}/integrations`, ADMIN_TOKEN, {
    platform: "twilio_studio",
    name: "Studio",
    signing_secret: AUTH_TOKEN,
    end_of_call: { variable_fields: ["order_number"] },
  });
  url = new URL(created.body.integration.webhook_path, fixture.server.url);
  secret = created.body.webhook_secret;
});

const params = (event: string, callSid: string) => ({
  event,
  call_sid: callSid,
  from: "+13105550123",
  to: "+13105550100",
  ...(event === "end" ? { intent: "order_status", order_number: "A-7" } : {}),
});
const form = (values: Record<string, string>) => new URLSearchParams(values).toString();
const FORM = { "content-type": "application/x-www-form-urlencoded" };

describe("the Studio widget", () => {
  test("Basic credentials from the URL: the first request is challenged, the one with credentials answered", async () => {
    const body = form(params("inbound", `CA${randomUUID()}`));
    const challenged = await request(fixture.server.url, "POST", url.pathname, { rawBody: body, headers: FORM });
    expect(challenged.status).toBe(401);
    expect(challenged.headers.get("www-authenticate")).toMatch(/^Basic realm="/);
    const basic = `Basic ${Buffer.from(`studio:${secret}`).toString("base64")}`;
    const answered = await request(fixture.server.url, "POST", url.pathname, {
      rawBody: body,
      headers: { ...FORM, authorization: basic },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.customer_ref).toMatch(/^[0-9a-f-]{36}$/);
    expect(answered.body.var_order_number).toBe("");
  });

  test("a form signed with X-Twilio-Signature starts and ends the call; the next call gets the order", async () => {
    const callSid = `CA${randomUUID()}`;
    for (const event of ["inbound", "end"]) {
      const values = params(event, callSid);
      const signature = twilio.getExpectedTwilioSignature(AUTH_TOKEN, url.toString(), values);
      const res = await request(fixture.server.url, "POST", url.pathname, {
        rawBody: form(values),
        headers: { ...FORM, "x-twilio-signature": signature },
      });
      expect(res.status).toBe(200);
    }
    const values = params("inbound", `CA${randomUUID()}`);
    const next = await request(fixture.server.url, "POST", url.pathname, {
      rawBody: form(values),
      headers: { ...FORM, "x-twilio-signature": twilio.getExpectedTwilioSignature(AUTH_TOKEN, url.toString(), values) },
    });
    expect(next.body.var_order_number).toBe("A-7");
    expect(next.body.open_intents).toBe("order_status (1 attempt)");
  });

  test("JSON signed with bodySHA256 in the URL, and GET with the parameters in the query", async () => {
    const json = JSON.stringify(params("inbound", `CA${randomUUID()}`));
    const signedUrl = `${url}?bodySHA256=${twilio.getExpectedBodyHash(json)}`;
    const posted = await request(fixture.server.url, "POST", new URL(signedUrl).pathname + new URL(signedUrl).search, {
      rawBody: json,
      headers: {
        "content-type": "application/json",
        "x-twilio-signature": twilio.getExpectedTwilioSignature(AUTH_TOKEN, signedUrl, {}),
      },
    });
    expect(posted.body).toMatchObject({ customer_ref: expect.any(String) });
    expect(posted.status).toBe(200);
    expect(posted.body.customer_ref).toMatch(/^[0-9a-f-]{36}$/);

    const getUrl = `${url}?${form(params("inbound", `CA${randomUUID()}`))}`;
    const got = await fetch(getUrl, {
      headers: { "x-twilio-signature": twilio.getExpectedTwilioSignature(AUTH_TOKEN, getUrl, {}) },
    });
    expect(got.status).toBe(200);
    expect((await got.json()).customer_ref).toMatch(/^[0-9a-f-]{36}$/);

    const forged = await fetch(getUrl, { headers: { "x-twilio-signature": "bm90IGl0" } });
    expect(forged.status).toBe(401);
  });
});
