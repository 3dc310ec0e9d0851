import { createHmac } from "node:crypto";
import { ElevenLabsClient } from "@elevenlabs/elevenlabs-js";
import { symmetric as retellSignature } from "retell-sdk/lib/webhook_auth";
import twilio from "twilio";
import { describe, expect, test } from "vitest";
import { hashSecret } from "../../src/domain/api-key.ts";
import { elevenlabs } from "../../src/integrations/platforms/elevenlabs.ts";
import { retell } from "../../src/integrations/platforms/retell.ts";
import { telnyx } from "../../src/integrations/platforms/telnyx.ts";
import { twilioStudio } from "../../src/integrations/platforms/twilio-studio.ts";
import { vapi } from "../../src/integrations/platforms/vapi.ts";
import { OTHER_TELNYX_KEYS, TELNYX_KEYS, telnyxHeaders } from "./telnyx-signing.ts";

// Each adapter's check against signatures made, or accepted, by the platform's
// own SDK: a signature the platform would not send fails here.

const NOW = Date.now();
const BODY = '{"event":"call_inbound","call_inbound":{"from_number":"+12137771234","to_number":"+12137771235"}}';
const URL_ = "https://cc.example.com/v1/integrations/wh_0123456789abcdefghijABCDEFGHIJ01";
const credentials = { tokenHash: hashSecret("whsec_token"), signingSecret: "signing-secret" };
const hmac = (message: string, secret = "signing-secret") => createHmac("sha256", secret).update(message).digest("hex");
const signed = (headers: Record<string, string>, payload = BODY, nowMs = NOW, url = URL_) => ({
  payload,
  headers: new Headers(headers),
  url,
  nowMs,
  credentials,
});

describe("Retell: x-retell-signature, as retell-sdk signs it", () => {
  const header = async (stamp: number, payload = BODY, key = "signing-secret") => ({
    "x-retell-signature": await retellSignature.sign(payload, key, stamp),
  });
  test("accepts a signature within five minutes either way", async () => {
    expect(retell.authenticate(signed(await header(NOW)))).toBe(true);
    expect(retell.authenticate(signed(await header(NOW - 299_000)))).toBe(true);
    expect(retell.authenticate(signed(await header(NOW + 299_000)))).toBe(true);
  });
  test("refuses a stale timestamp, a changed body, another key and a malformed header", async () => {
    expect(retell.authenticate(signed(await header(NOW - 301_000)))).toBe(false);
    expect(retell.authenticate(signed(await header(NOW), `${BODY} `))).toBe(false);
    expect(retell.authenticate(signed(await header(NOW, BODY, "other")))).toBe(false);
    expect(retell.authenticate(signed({ "x-retell-signature": hmac(BODY) }))).toBe(false);
    expect(retell.authenticate(signed({ authorization: "Bearer whsec_token" }))).toBe(false);
  });
});

describe("ElevenLabs: ElevenLabs-Signature t=<s>,v0=<HMAC of t.body>, or the secret as Bearer", () => {
  const header = (seconds: number, payload = BODY) => ({
    "elevenlabs-signature": `t=${seconds},v0=${hmac(`${seconds}.${payload}`)}`,
  });
  const nowSeconds = Math.floor(NOW / 1000);
  test("the header made here is the one ElevenLabs' SDK accepts (webhooks.constructEvent)", async () => {
    const client = new ElevenLabsClient({ apiKey: "unused" });
    const event = await client.webhooks.constructEvent(
      BODY,
      header(nowSeconds)["elevenlabs-signature"],
      "signing-secret",
    );
    expect(event).toEqual(JSON.parse(BODY));
    await expect(
      client.webhooks.constructEvent(BODY, header(nowSeconds)["elevenlabs-signature"], "other"),
    ).rejects.toThrow();
  });
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

describe("Vapi: the integration's secret as a header", () => {
  test("Vapi takes x-vapi-secret or Bearer", () => {
    expect(vapi.authenticate(signed({ "x-vapi-secret": "whsec_token" }))).toBe(true);
    expect(vapi.authenticate(signed({ authorization: "Bearer whsec_token" }))).toBe(true);
    expect(vapi.authenticate(signed({ "x-vapi-secret": "whsec_tokeN" }))).toBe(false);
    expect(vapi.authenticate(signed({ "x-vapi-secret": "" }))).toBe(false);
  });
});

describe("Twilio Studio: Basic in the URL, X-Twilio-Signature as twilio signs it, or Bearer", () => {
  const basic = (user: string, password: string) => ({
    authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
  });
  const FORM = "event=inbound&call_sid=CA123&from=%2B13105550177&to=%2B13105550100";
  const formParams = Object.fromEntries(new URLSearchParams(FORM));
  const form = { "content-type": "application/x-www-form-urlencoded" };

  test("Basic credentials: any user name, the webhook secret as the password", () => {
    expect(twilioStudio.authenticate(signed(basic("studio", "whsec_token")))).toBe(true);
    expect(twilioStudio.authenticate(signed(basic("", "whsec_token")))).toBe(true);
    expect(twilioStudio.authenticate(signed(basic("studio", "whsec_other")))).toBe(false);
    expect(twilioStudio.authenticate(signed({ authorization: "Basic !!!" }))).toBe(false);
  });

  test("a form POST signed by twilio's getExpectedTwilioSignature", () => {
    const signature = twilio.getExpectedTwilioSignature("signing-secret", URL_, formParams);
    expect(twilio.validateRequest("signing-secret", signature, URL_, formParams)).toBe(true);
    expect(twilioStudio.authenticate(signed({ ...form, "x-twilio-signature": signature }, FORM))).toBe(true);
    // The URL with its default port, as Twilio's own validator also accepts.
    const withPort = "https://cc.example.com:443/v1/integrations/wh_0123456789abcdefghijABCDEFGHIJ01";
    expect(twilioStudio.authenticate(signed({ ...form, "x-twilio-signature": signature }, FORM, NOW, withPort))).toBe(
      true,
    );
    const otherToken = twilio.getExpectedTwilioSignature("other", URL_, formParams);
    expect(twilioStudio.authenticate(signed({ ...form, "x-twilio-signature": otherToken }, FORM))).toBe(false);
    const changed = FORM.replace("CA123", "CA124");
    expect(twilioStudio.authenticate(signed({ ...form, "x-twilio-signature": signature }, changed))).toBe(false);
  });

  test("a JSON POST: the URL carries bodySHA256, validated by twilio's validateRequestWithBody", () => {
    const body = '{"event":"inbound","call_sid":"CA123","from":"+13105550177"}';
    const url = `${URL_}?bodySHA256=${twilio.getExpectedBodyHash(body)}`;
    const signature = twilio.getExpectedTwilioSignature("signing-secret", url, {});
    expect(twilio.validateRequestWithBody("signing-secret", signature, url, body)).toBe(true);
    const json = { "content-type": "application/json" };
    expect(twilioStudio.authenticate(signed({ ...json, "x-twilio-signature": signature }, body, NOW, url))).toBe(true);
    expect(twilioStudio.authenticate(signed({ ...json, "x-twilio-signature": signature }, `${body} `, NOW, url))).toBe(
      false,
    );
  });

  test("a GET: the parameters are in the signed URL", () => {
    const url = `${URL_}?${FORM}`;
    const signature = twilio.getExpectedTwilioSignature("signing-secret", url, {});
    expect(twilioStudio.authenticate(signed({ "x-twilio-signature": signature }, FORM, NOW, url))).toBe(true);
  });

  test("without a stored auth token a signature proves nothing; Bearer still works", () => {
    const signature = twilio.getExpectedTwilioSignature("signing-secret", URL_, formParams);
    const unsigned = { ...signed({ ...form, "x-twilio-signature": signature }, FORM) };
    expect(twilioStudio.authenticate({ ...unsigned, credentials: { ...credentials, signingSecret: null } })).toBe(
      false,
    );
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
