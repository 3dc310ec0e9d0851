import { randomBytes } from "node:crypto";
import type { Db } from "../store/database.ts";
import type { UserTokenTable } from "../store/schema.ts";
import { claimUserToken, findOpenUserToken, insertUserToken, spendUserTokens } from "../store/user-token-repository.ts";
import { sha256 } from "./sessions.ts";

// The links mailed to a person (verify the address, reset the password): 256
// random bits, stored as SHA-256, expiring, and spent by one UPDATE so each
// works once. A new link of a purpose ends the person's older ones.

type Purpose = UserTokenTable["purpose"];

export async function issueUserToken(
  db: Db,
  input: { userId: string; purpose: Purpose; now: Date; ttlMs: number },
): Promise<string> {
  await spendUserTokens(db, input.userId, input.purpose, input.now);
  const token = randomBytes(32).toString("base64url");
  await insertUserToken(db, {
    token_hash: sha256(token),
    user_id: input.userId,
    purpose: input.purpose,
    created_at: input.now,
    expires_at: new Date(input.now.getTime() + input.ttlMs),
  });
  return token;
}

const plausible = (token: string) => token.length >= 20 && token.length <= 100;

/** The user an open link belongs to, without spending it. */
export async function peekUserToken(db: Db, token: string, purpose: Purpose, now: Date) {
  if (!plausible(token)) return undefined;
  return (await findOpenUserToken(db, sha256(token), purpose, now))?.user_id;
}

/** Spends a link; undefined when it is unknown, used or expired. */
export async function claimToken(db: Db, token: string, purpose: Purpose, now: Date) {
  if (!plausible(token)) return undefined;
  return (await claimUserToken(db, sha256(token), purpose, now))?.user_id;
}
