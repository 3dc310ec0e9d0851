import { randomUUID } from "node:crypto";
import twilio from "twilio";
import { beforeAll, describe, expect, test } from "vitest";
import { setQuota } from "../helpers/admin-client.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";
import { TELNYX_KEYS, telnyxHeaders } from "./telnyx-signing.ts";

// The platforms' STIR/SHAKEN data reaches the score (docs/integrations.md,
// "Caller-number attestation"): Twilio Studio's StirVerstat passed by the
// widget as `stir_verstat`, signed as Twilio signs; Telnyx's Call Control
// fields when its payload carries them, signed with the account's Ed25519 key.
// A known number without line data, called again the same day, is 0.40
// (confirm) without attestation; with A it is 0.50 (reuse).

const AUTH_TOKEN = "fedcba9876543210fedcba9876543210";
const fixture = useTestServer();
const FORM = { "content-type": "application/x-www-form-urlencoded" };

async function createIntegration(accountId: string, body: object): Promise<URL> {
  const created = await post(fixture.server.url, `/admin/v1/accounts/${accountId}/integrations`, ADMIN_TOKEN, body);
  expect(created.status).toBe(200);
  return new URL(created.body.integration.webhook_path, fixture.server.url);
}

let studioUrl: URL;
let telnyxUrl: URL;

beforeAll(async () => {
  const { accountId } = await createAccountWithKey(fixture.server.url);
  await setQuota(fixture.server.url, accountId, 200);
  studioUrl = await createIntegration(accountId, {
    platform: "twilio_studio",
    name: "Studio",
    signing_secret: AUTH_TOKEN,
  });
  telnyxUrl = await createIntegration(accountId, {
    platform: "telnyx",
    name: "Front desk",
    signing_secret: TELNYX_KEYS.publicKey,
  });
});

describe("Twilio Studio passes StirVerstat through", () => {
  async function inbound(from: string, stirVerstat?: string) {
    const values: Record<string, string> = {
      event: "inbound",
      call_sid: `CA${randomUUID().replaceAll("-", "")}`,
      from,
      to: "+13105550100",
      ...(stirVerstat === undefined ? {} : { stir_verstat: stirVerstat }),
    };
    const res = await request(fixture.server.url, "POST", studioUrl.pathname, {
      rawBody: new URLSearchParams(values).toString(),
      headers: {
        ...FORM,
        "x-twilio-signature": twilio.getExpectedTwilioSignature(AUTH_TOKEN, studioUrl.toString(), values),
      },
    });
    expect(res.status).toBe(200);
    return res.body;
  }

  test("A lifts a same-day caller on a known number to reuse; failed leaves confirm", async () => {
    const from = "+13105550731";
    expect((await inbound(from)).identity_recommendation).toBe("ignore");
    expect(await inbound(from)).toMatchObject({ identity_confidence: "0.40", identity_recommendation: "confirm" });
    expect(await inbound(from, "TN-Validation-Passed-A")).toMatchObject({
      identity_confidence: "0.50",
      identity_recommendation: "reuse",
    });
    expect(await inbound(from, "TN-Validation-Failed-A")).toMatchObject({
      identity_confidence: "0.40",
      identity_recommendation: "confirm",
    });
  });

  test("an empty StirVerstat (no PASSporT) or one in no known form is no data, and the call is answered", async () => {
    const from = "+13105550732";
    await inbound(from);
    for (const stirVerstat of ["", "TN-Validation-Something-New"]) {
      expect(await inbound(from, stirVerstat)).toMatchObject({
        identity_confidence: "0.40",
        identity_recommendation: "confirm",
        no_context_reason: "",
      });
    }
  });
});

describe("Telnyx's attestation, where its payload carries it", () => {
  async function initialization(from: string, stir: Record<string, unknown> = {}) {
    const payload = JSON.stringify({
      data: {
        record_type: "event",
        id: `event_${randomUUID()}`,
        event_type: "assistant.initialization",
        occurred_at: new Date().toISOString(),
        payload: {
          telnyx_conversation_channel: "phone_call",
          telnyx_agent_target: "+13128675309",
          telnyx_end_user_target: from,
          call_control_id: `v3:${randomUUID()}`,
          ...stir,
        },
      },
    });
    const res = await request(fixture.server.url, "POST", telnyxUrl.pathname, {
      rawBody: payload,
      headers: { "content-type": "application/json", ...telnyxHeaders(payload) },
    });
    expect(res.status).toBe(200);
    return res.body.dynamic_variables;
  }

  test("a validated A lifts the known number to reuse; a failed validation does not", async () => {
    const from = "+13125550733";
    expect((await initialization(from)).identity_recommendation).toBe("ignore");
    expect(await initialization(from)).toMatchObject({ identity_confidence: "0.40" });
    expect(await initialization(from, { shaken_stir_attestation: "A", shaken_stir_validated: true })).toMatchObject({
      identity_confidence: "0.50",
      identity_recommendation: "reuse",
    });
    expect(await initialization(from, { shaken_stir_attestation: "A", shaken_stir_validated: false })).toMatchObject({
      identity_confidence: "0.40",
      identity_recommendation: "confirm",
    });
  });
});
