import { createHmac } from "node:crypto";
import { describe, expect, test } from "vitest";
import { hashSecret } from "../../src/domain/api-key.ts";
import { elevenlabs } from "../../src/integrations/platforms/elevenlabs.ts";
import { retell } from "../../src/integrations/platforms/retell.ts";
import { telnyx } from "../../src/integrations/platforms/telnyx.ts";
import { twilioStudio } from "../../src/integrations/platforms/twilio-studio.ts";
import { vapi } from "../../src/integrations/platforms/vapi.ts";
import { OTHER_TELNYX_KEYS, TELNYX_KEYS, telnyxHeaders } from "./telnyx-signing.ts";

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const BODY = '{"event":"call_inbound","call_inbound":{"from_number":"+12137771234","to_number":"+12137771235"}}';
const credentials = { tokenHash: hashSecret("whsec_token"), signingSecret: "signing-secret" };
const hmac = (message: string, secret = "signing-secret") => createHmac("sha256", secret).update(message).digest("hex");
const signed = (headers: Record<string, string>, payload = BODY, nowMs = NOW) => ({
  payload,
  headers: new Headers(headers),
  nowMs,
  credentials,
});

describe("Retell: x-retell-signature v=<ms>,d=<HMAC of body + ms>", () => {
  const header = (stamp: number, payload = BODY) => ({ "x-retell-signature": `v=${stamp},d=${hmac(payload + stamp)}` });
  test("accepts a signature within five minutes either way", () => {
    expect(retell.authenticate(signed(header(NOW)))).toBe(true);
    expect(retell.authenticate(signed(header(NOW - 299_000)))).toBe(true);
    expect(retell.authenticate(signed(header(NOW + 299_000)))).toBe(true);
  });
  test("refuses a stale timestamp, a changed body, another key and a malformed header", () => {
    expect(retell.authenticate(signed(header(NOW - 301_000)))).toBe(false);
    expect(retell.authenticate(signed(header(NOW), `${BODY} `))).toBe(false);
    expect(retell.authenticate(signed({ "x-retell-signature": `v=${NOW},d=${hmac(BODY + NOW, "other")}` }))).toBe(
      false,
    );
    expect(retell.authenticate(signed({ "x-retell-signature": hmac(BODY) }))).toBe(false);
    expect(retell.authenticate(signed({ authorization: "Bearer whsec_token" }))).toBe(false);
  });
});

describe("ElevenLabs: ElevenLabs-Signature t=<s>,v0=<HMAC of t.body>, or the secret as Bearer", () => {
  const header = (seconds: number, payload = BODY) => ({
    "elevenlabs-signature": `t=${seconds},v0=${hmac(`${seconds}.${payload}`)}`,
  });
  const nowSeconds = NOW / 1000;
  test("accepts a signature within thirty minutes", () => {
    expect(elevenlabs.authenticate(signed(header(nowSeconds)))).toBe(true);
    expect(elevenlabs.authenticate(signed(header(nowSeconds - 1799)))).toBe(true);
  });
  test("refuses a stale or wrong signature, even with a valid Bearer beside it", () => {
    expect(elevenlabs.authenticate(signed(header(nowSeconds - 1801)))).toBe(false);
    expect(elevenlabs.authenticate(signed(header(nowSeconds), `${BODY} `))).toBe(false);
    expect(elevenlabs.authenticate(signed({ ...header(nowSeconds - 1801), authorization: "Bearer whsec_token" }))).toBe(
      false,
    );
  });
  test("the initiation webhook's secret header is checked against the stored hash", () => {
    expect(elevenlabs.authenticate(signed({ authorization: "Bearer whsec_token" }))).toBe(true);
    expect(elevenlabs.authenticate(signed({ authorization: "Bearer whsec_other" }))).toBe(false);
    expect(elevenlabs.authenticate(signed({}))).toBe(false);
  });
});

describe("Vapi and Twilio Studio: the integration's secret as a header", () => {
  test("Vapi takes x-vapi-secret or Bearer", () => {
    expect(vapi.authenticate(signed({ "x-vapi-secret": "whsec_token" }))).toBe(true);
    expect(vapi.authenticate(signed({ authorization: "Bearer whsec_token" }))).toBe(true);
    expect(vapi.authenticate(signed({ "x-vapi-secret": "whsec_tokeN" }))).toBe(false);
    expect(vapi.authenticate(signed({ "x-vapi-secret": "" }))).toBe(false);
  });
  test("Twilio Studio takes Bearer only", () => {
    expect(twilioStudio.authenticate(signed({ authorization: "Bearer whsec_token" }))).toBe(true);
    expect(twilioStudio.authenticate(signed({ "x-vapi-secret": "whsec_token" }))).toBe(false);
  });
});

describe("Telnyx: telnyx-signature-ed25519 over <s>|body with telnyx-timestamp, or the secret as Bearer", () => {
  const keyed = { ...credentials, signingSecret: TELNYX_KEYS.publicKey };
  const telnyxSigned = (headers: Record<string, string>, payload = BODY, nowMs = NOW) => ({
    ...signed(headers, payload, nowMs),
    credentials: keyed,
  });
  test("accepts a signature within five minutes either way", () => {
    expect(telnyx.authenticate(telnyxSigned(telnyxHeaders(BODY, TELNYX_KEYS, NOW)))).toBe(true);
    expect(telnyx.authenticate(telnyxSigned(telnyxHeaders(BODY, TELNYX_KEYS, NOW - 299_000)))).toBe(true);
    expect(telnyx.authenticate(telnyxSigned(telnyxHeaders(BODY, TELNYX_KEYS, NOW + 299_000)))).toBe(true);
  });
  test("refuses a stale timestamp, a changed body, another key, and a signature beside a valid Bearer", () => {
    expect(telnyx.authenticate(telnyxSigned(telnyxHeaders(BODY, TELNYX_KEYS, NOW - 301_000)))).toBe(false);
    expect(telnyx.authenticate(telnyxSigned(telnyxHeaders(BODY, TELNYX_KEYS, NOW), `${BODY} `))).toBe(false);
    expect(telnyx.authenticate(telnyxSigned(telnyxHeaders(BODY, OTHER_TELNYX_KEYS, NOW)))).toBe(false);
    const stale = telnyxHeaders(BODY, TELNYX_KEYS, NOW - 301_000);
    expect(telnyx.authenticate(telnyxSigned({ ...stale, authorization: "Bearer whsec_token" }))).toBe(false);
    expect(telnyx.authenticate(telnyxSigned({ ...stale, "telnyx-timestamp": "soon" }))).toBe(false);
  });
  test("a request without a signature is checked for the integration's secret", () => {
    expect(telnyx.authenticate(telnyxSigned({ authorization: "Bearer whsec_token" }))).toBe(true);
    expect(telnyx.authenticate(telnyxSigned({ authorization: "Bearer whsec_other" }))).toBe(false);
    expect(telnyx.authenticate(telnyxSigned({}))).toBe(false);
  });
});
