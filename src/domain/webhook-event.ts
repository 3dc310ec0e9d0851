import type { Attestation } from "./attestation.ts";

// A platform webhook read into what it means for the caller's context.

export interface InboundEvent {
  readonly kind: "inbound";
  /** The platform's call id; absent when the platform has none yet (Retell). */
  readonly callId?: string;
  readonly ani?: string;
  readonly dnis?: string;
  /** What the platform's STIR/SHAKEN check said of the caller's number, when it says it in a form we read. */
  readonly attestation?: Attestation;
}

export interface EndEvent {
  readonly kind: "end";
  readonly callId: string;
  readonly ani?: string;
  readonly dnis?: string;
  /** The analysis fields the integration's mapping reads from. */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly summary?: string;
}

/** A message the platform sends that carries nothing to do (status updates, audio, ...). */
export interface IgnoredEvent {
  readonly kind: "ignored";
  readonly type: string;
}

export type WebhookEvent = InboundEvent | EndEvent | IgnoredEvent;

/** The value at a path of nested objects, or undefined when any step is missing. */
export function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

export function stringAt(value: unknown, ...path: string[]): string | undefined {
  const found = at(value, ...path);
  return typeof found === "string" && found !== "" ? found : undefined;
}

export function objectAt(value: unknown, ...path: string[]): Record<string, unknown> {
  const found = at(value, ...path);
  return typeof found === "object" && found !== null && !Array.isArray(found) ? (found as Record<string, unknown>) : {};
}
