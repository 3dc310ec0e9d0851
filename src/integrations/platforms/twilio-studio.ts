import { createHash, createHmac } from "node:crypto";
import { readVerstat } from "../../domain/verstat.ts";
import { objectAt, stringAt, type WebhookEvent } from "../../domain/webhook-event.ts";
import { basicPassword, bearerMatches, headerCheck, safeEqual, tokenMatches } from "../webhook-credentials.ts";
import type { PlatformAdapter, SignedRequest } from "./platform-adapter.ts";
import { analysis, needWebhookSecret, type PlatformSimulation, simulatedMessage } from "./platform-simulation.ts";

// Twilio Studio's HTTP Request widget has no header field: its credential is
// either Basic in the URL (`https://studio:whsec_…@host/…`, sent once the
// server challenges for it) or Twilio's own signature, X-Twilio-Signature,
// keyed by the account's auth token (stored as the integration's signing
// secret). A Bearer header is still taken from clients that can send one.
// The widget sends a form (its default), JSON, or a GET with the parameters
// in the query; it reads a flat JSON object back as `widgets.<name>.parsed`.
// The inbound widget may pass Twilio's StirVerstat as `stir_verstat`; a value
// in no form we read (or empty: the call had no PASSporT) is no attestation.

export const twilioStudio: PlatformAdapter = {
  label: "Twilio Studio",
  simulation: twilioStudioSimulation(),
  signatureHeader: "x-twilio-signature",
  creation: {},
  authenticate(request) {
    const { headers, credentials } = request;
    const password = basicPassword(headers.get("authorization"));
    if (password !== undefined) return tokenMatches(password, credentials.tokenHash);
    const signature = headers.get("x-twilio-signature");
    if (signature !== null) return credentials.signingSecret !== null && twilioSigned(request, signature);
    return bearerMatches(headers, credentials.tokenHash);
  },
  streamingCheck(request) {
    const { headers, credentials, url } = request;
    const password = basicPassword(headers.get("authorization"));
    if (password !== undefined) return headerCheck(tokenMatches(password, credentials.tokenHash));
    const signature = headers.get("x-twilio-signature");
    if (signature === null) return headerCheck(bearerMatches(headers, credentials.tokenHash));
    // Only a JSON body is covered by a hash the URL carries; a form's signature needs its parameters sorted.
    const bodyHash = new URL(url).searchParams.get("bodySHA256");
    if (bodyHash === null || credentials.signingSecret === null) return undefined;
    const authToken = credentials.signingSecret;
    const hash = createHash("sha256");
    return {
      update: (chunk) => void hash.update(chunk),
      matches: () => safeEqual(hash.digest("hex"), bodyHash.toLowerCase()) && urlSigned(authToken, url, "", signature),
    };
  },
  messageTypes: { pattern: /(?:"event"\s*:\s*"|(?:^|&)event=)([^"&]+)/, read: ["inbound", "end"] },
  read(json): WebhookEvent {
    const event = stringAt(json, "event") ?? "";
    const callId = stringAt(json, "call_sid");
    const ani = stringAt(json, "from");
    const dnis = stringAt(json, "to");
    if (event === "inbound") {
      const verstat = stringAt(json, "stir_verstat");
      return {
        kind: "inbound",
        callId,
        ani,
        dnis,
        attestation: verstat === undefined ? undefined : readVerstat(verstat),
      };
    }
    if (event === "end" && callId !== undefined) {
      return { kind: "end", callId, ani, dnis, fields: objectAt(json), summary: stringAt(json, "summary") };
    }
    return { kind: "ignored", type: event };
  },
  inboundReply(variables) {
    return variables;
  },
};

/**
 * Twilio's request signature: base64 HMAC-SHA1, keyed by the auth token, of the URL it requested followed
 * by a form's parameters sorted by name (each name then value). A JSON body is covered instead by the
 * `bodySHA256` query parameter (hex SHA-256 of the body), which the signed URL carries. The URL is tried
 * with and without the scheme's default port, as Twilio's own validator does.
 */
function twilioSigned({ payload, headers, url, credentials }: SignedRequest, signature: string): boolean {
  const authToken = credentials.signingSecret ?? "";
  const query = new URL(url).searchParams;
  const bodyHash = query.get("bodySHA256");
  let signed = "";
  if (bodyHash !== null) {
    if (!safeEqual(createHash("sha256").update(payload, "utf8").digest("hex"), bodyHash.toLowerCase())) return false;
  } else if (headers.get("content-type")?.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    const params = [...new URLSearchParams(payload)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    signed = params.map(([name, value]) => name + value).join("");
  }
  return urlSigned(authToken, url, signed, signature);
}

/** Whether `signature` is Twilio's over the URL (with or without its default port) followed by `signed`. */
function urlSigned(authToken: string, url: string, signed: string, signature: string): boolean {
  return withAndWithoutPort(url).some((candidate) =>
    safeEqual(
      createHmac("sha1", authToken)
        .update(candidate + signed, "utf8")
        .digest("base64"),
      signature,
    ),
  );
}

function withAndWithoutPort(url: string): string[] {
  const match = /^(https?:\/\/)([^/?#]*)(.*)$/i.exec(url);
  if (match === null) return [url];
  const [, scheme, authority, rest] = match;
  const host = authority.replace(/:\d+$/, "");
  const port = scheme.toLowerCase() === "https://" ? ":443" : ":80";
  return [...new Set([url, scheme + host + rest, scheme + host + port + rest])];
}

/** The Studio flow's HTTP Request widgets as a flow sends them: a form, signed with the account's auth token. */
function twilioStudioSimulation(): PlatformSimulation {
  const { form } = simulatedMessage;
  return {
    events: {
      inbound: form("inbound", (call) => ({ event: "inbound", call_sid: call.callId, from: call.from, to: call.to })),
      progress: form("in-call", (call) => ({ event: "progress", call_sid: call.callId })),
      end: form("end", (call) => ({
        event: "end",
        call_sid: call.callId,
        from: call.from,
        to: call.to,
        ...analysis(call),
        summary: call.summary,
      })),
    },
    // Twilio signs each widget request with the account's auth token; without it, the Basic credentials that the
    // "studio url" printed by `integrations create` carries.
    headers: ({ body, url, webhookSecret, signingSecret }): Record<string, string> =>
      signingSecret
        ? { "x-twilio-signature": twilioSignature(signingSecret, url, body) }
        : { authorization: `Basic ${Buffer.from(`studio:${needWebhookSecret(webhookSecret)}`).toString("base64")}` },
  };
}

/** Twilio's request signature as Twilio makes it: HMAC-SHA1 of the URL followed by the form's sorted parameters. */
function twilioSignature(authToken: string, url: string, formBody: string): string {
  const params = [...new URLSearchParams(formBody)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const data = url + params.map(([name, value]) => name + value).join("");
  return createHmac("sha1", authToken).update(data, "utf8").digest("base64");
}
