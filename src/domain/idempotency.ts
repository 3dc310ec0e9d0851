import { createHash } from "node:crypto";
import type { EndCallCommand } from "./call.ts";

// A replayed Idempotency-Key must carry the same request. The fingerprint is
// taken over the validated command with sorted keys, so the order of JSON
// keys in the body does not matter.

export function fingerprintEndCall(command: EndCallCommand): string {
  const canonical = {
    call_id: command.callId,
    customer_ref: command.customerRef ?? null,
    identity_hints: command.identityHints
      ? {
          ani: command.identityHints.ani ?? null,
          dnis: command.identityHints.dnis ?? null,
          customer_ref: command.identityHints.customerRef ?? null,
          external_ids: sortedEntries(Object.entries(command.identityHints.externalIds)),
        }
      : null,
    intents: command.intents.map((i) => [
      i.intent,
      i.status ?? null,
      i.resolution?.type ?? null,
      i.resolution?.externalReference ?? null,
    ]),
    // Added later, and only when set: a key claimed before they existed keeps its fingerprint.
    variables: sortedEntries(
      [...command.variables].map(([name, v]) => [
        name,
        v.requiresVerification ? [v.value, v.source, v.ttlSeconds, true] : [v.value, v.source, v.ttlSeconds],
      ]),
    ),
    ...(command.summary === undefined ? {} : { summary: command.summary }),
  };
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

function sortedEntries<T>(entries: [string, T][]): [string, T][] {
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
