import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

// Standard Webhooks (standardwebhooks.com) signatures, made by its own
// package so any stock verifier accepts them: webhook-id (the event id, the
// same on every attempt), webhook-timestamp (this attempt's time, seconds)
// and webhook-signature ("v1,<base64>", one per secret in force, separated
// by spaces, so a receiver still on the old secret verifies during a roll).

/** A new signing secret in the specification's format: "whsec_" and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export function signatureHeaders(
  eventId: string,
  at: Date,
  payload: string,
  secrets: readonly string[],
): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(eventId, at, payload));
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}
