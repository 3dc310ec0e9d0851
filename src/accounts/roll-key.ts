import { DomainError } from "../domain/domain-error.ts";
import { expireApiKey } from "../store/api-key-repository.ts";
import type { AccountDeps } from "./account-deps.ts";
import { createKey } from "./create-key.ts";
import { findLiveKey } from "./owned-keys.ts";

// Rolling a key: a new secret of the same name and kind, and the old one
// kept working for a grace period the owner picks (so deployed clients can
// move over), after which it is refused as revoked.

export const ROLL_GRACES = { now: 0, "1h": 3_600_000, "24h": 86_400_000, "7d": 604_800_000 } as const;
export type RollGrace = keyof typeof ROLL_GRACES;

function isRollGrace(value: string): value is RollGrace {
  return Object.hasOwn(ROLL_GRACES, value);
}

export async function rollKey(deps: AccountDeps, accountId: string, keyId: string, grace: string) {
  if (!isRollGrace(grace)) {
    throw new DomainError("invalid_argument", "Validation failed", [
      { path: ["grace"], message: "Choose now, 1 hour, 24 hours or 7 days" },
    ]);
  }
  const old = await findLiveKey(deps, accountId, keyId);
  const oldEndsAt = new Date(deps.clock.now().getTime() + ROLL_GRACES[grace]);
  const key = await createKey(deps, { accountId, kind: old.kind, name: old.name });
  await expireApiKey(deps.db, old.keyId, oldEndsAt);
  deps.keys.forgetAll();
  return { old, oldEndsAt, keyId: key.keyId, secret: key.apiKey, name: old.name, kind: old.kind };
}
