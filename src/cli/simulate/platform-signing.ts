import { createHmac, createPrivateKey, generateKeyPairSync, sign } from "node:crypto";
import type { Platform } from "../../domain/integration.ts";
import type { EventKind } from "./platform-events.ts";

// The credentials each platform sends with a webhook, made as the platform makes them. The service checks them
// with its adapters (src/integrations/platforms), whose checks the tests hold to the platforms' own SDKs.

export interface SigningInput {
  readonly platform: Platform;
  readonly kind: EventKind;
  readonly body: string;
  readonly url: string;
  readonly nowMs: number;
  /** The integration's webhook secret (whsec_…), as `integrations create` printed it. */
  readonly webhookSecret: string;
  /**
   * The platform's own secret: Retell's API key, ElevenLabs' HMAC secret, Twilio's auth token, or for Telnyx the
   * private half of the key pair whose public half the integration holds (`simulate-keys telnyx` makes one).
   */
  readonly signingSecret?: string;
}

const hmacHex = (secret: string, message: string) => createHmac("sha256", secret).update(message).digest("hex");

/** What a platform sends where it signs, and what it sends where it does not need to. */
export function platformHeaders(input: SigningInput): Record<string, string> {
  const { platform, kind, body, url, nowMs, webhookSecret, signingSecret } = input;
  switch (platform) {
    case "vapi":
      return { "x-vapi-secret": needWebhookSecret(webhookSecret) };
    case "retell":
      return {
        "x-retell-signature": `v=${nowMs},d=${hmacHex(needSigningSecret(signingSecret, platform), body + nowMs)}`,
      };
    case "elevenlabs": {
      // The conversation initiation webhook carries the header the agent's settings hold; the post-call one is signed.
      if (kind === "inbound") return { authorization: `Bearer ${needWebhookSecret(webhookSecret)}` };
      const t = Math.floor(nowMs / 1000);
      return {
        "elevenlabs-signature": `t=${t},v0=${hmacHex(needSigningSecret(signingSecret, platform), `${t}.${body}`)}`,
      };
    }
    case "twilio_studio":
      // Twilio signs each widget request with the account's auth token; without it, the Basic credentials that
      // the "studio url" printed by `integrations create` carries.
      return signingSecret
        ? { "x-twilio-signature": twilioSignature(signingSecret, url, body) }
        : { authorization: `Basic ${Buffer.from(`studio:${needWebhookSecret(webhookSecret)}`).toString("base64")}` };
    case "telnyx": {
      const timestamp = String(Math.floor(nowMs / 1000));
      const key = createPrivateKey({
        key: Buffer.from(needSigningSecret(signingSecret, platform), "base64"),
        format: "der",
        type: "pkcs8",
      });
      const signature = sign(null, Buffer.from(`${timestamp}|${body}`, "utf8"), key).toString("base64");
      return { "telnyx-signature-ed25519": signature, "telnyx-timestamp": timestamp };
    }
  }
}

/** Twilio's request signature: HMAC-SHA1 of the URL followed by the form's parameters sorted by name. */
function twilioSignature(authToken: string, url: string, formBody: string): string {
  const params = [...new URLSearchParams(formBody)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const data = url + params.map(([name, value]) => name + value).join("");
  return createHmac("sha1", authToken).update(data, "utf8").digest("base64");
}

function needSigningSecret(secret: string | undefined, platform: Platform): string {
  if (!secret) {
    throw new MissingSecretError(
      `--signing-secret (or CALLER_CONTEXT_SIGNING_SECRET) is required to sign as ${platform}`,
    );
  }
  return secret;
}

function needWebhookSecret(secret: string): string {
  if (!secret) {
    throw new MissingSecretError(
      "--webhook-secret (or CALLER_CONTEXT_WEBHOOK_SECRET) is required: the whsec_… that `integrations create` printed",
    );
  }
  return secret;
}

/** A secret the platform would send is missing: the operator's mistake, named by its flag. */
export class MissingSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MissingSecretError";
  }
}

/**
 * A Telnyx key pair for a local integration: the public half as Mission Control shows it (base64 of the 32 raw
 * bytes, for `integrations create --signing-secret`), the private half as base64 PKCS#8 DER (for `simulate`).
 */
export function telnyxKeyPair(): { publicKey: string; privateKey: string } {
  const pair = generateKeyPairSync("ed25519");
  const raw = Buffer.from(pair.publicKey.export({ format: "jwk" }).x ?? "", "base64url");
  return {
    publicKey: raw.toString("base64"),
    privateKey: pair.privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
  };
}
