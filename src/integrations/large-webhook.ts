import type { MessageTypes } from "./platforms/platform-adapter.ts";

// A platform message too large to hold (ElevenLabs' post-call audio, a
// recording) is acknowledged without buffering it: its type is read from the
// start of the body, and its signature checked as the rest streams through.
// Only a message the service would not read anyway may be that large.

/** How much of a large body is kept to find its type. */
export const LARGE_BODY_HEAD_BYTES = 64 * 1024;

/**
 * The type of a message the service only acknowledges, from the start of its body; undefined when the head
 * names no type or names one the service reads (such a message keeps the size limit).
 */
export function ignorableType(types: MessageTypes, head: string): string | undefined {
  const pattern = new RegExp(types.pattern.source, "g");
  let first: string | undefined;
  for (const match of head.matchAll(pattern)) {
    if (types.read.includes(match[1])) return undefined;
    first ??= match[1];
  }
  return first;
}
