import { createHash } from "node:crypto";
import type { UnaryResponse } from "@connectrpc/connect";
import type { Clock } from "../domain/clock.ts";
import { PLATFORM_ADAPTERS } from "../integrations/platforms/platform-adapters.ts";
import type { Db } from "../store/database.ts";
import { claimReceipt, recordReply, releaseReceipt } from "../store/webhook-receipts.ts";

// A signed platform message is answered once. A replay (the same body under
// the same signature: a platform's retry, or someone who captured it) gets the
// first answer, and nothing is started or billed again. The record is in the
// database, so every instance agrees.

/** The headers that sign a platform's body (each adapter's); with the body they name one message. */
const SIGNATURE_HEADERS = Object.values(PLATFORM_ADAPTERS).flatMap((adapter) =>
  adapter.signatureHeader === undefined ? [] : [adapter.signatureHeader],
);

export function messageDigest(payload: string, headers: Headers): string {
  const hash = createHash("sha256");
  for (const name of SIGNATURE_HEADERS) hash.update(`${name}:${headers.get(name) ?? ""}\n`);
  return hash.update(payload, "utf8").digest("hex");
}

export interface OnceOnly {
  readonly db: Db;
  readonly clock: Clock;
  readonly integrationId: string;
  readonly digest: string;
}

/**
 * `answer`'s response the first time; for a replay, `replay` of the first answer's JSON, or `inFlight` while
 * the first is still being answered. An answer that failed is forgotten, so the message may come again.
 */
export async function answerOnce(
  once: OnceOnly,
  answer: () => Promise<UnaryResponse>,
  replay: (replyJson: string) => UnaryResponse,
  inFlight: () => UnaryResponse,
): Promise<UnaryResponse> {
  const { db, integrationId, digest } = once;
  const receipt = await claimReceipt(db, integrationId, digest, once.clock.now());
  if (!receipt.first) return receipt.replyJson === undefined ? inFlight() : replay(receipt.replyJson);
  let response: UnaryResponse;
  try {
    response = await answer();
  } catch (error) {
    await releaseReceipt(db, integrationId, digest).catch(() => {});
    throw error;
  }
  await recordReply(db, integrationId, digest, (response.message as unknown as { replyJson: string }).replyJson);
  return response;
}
