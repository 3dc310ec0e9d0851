import { createHmac, createSecretKey, type KeyObject, randomUUID } from "node:crypto";
import type { StartCallResult } from "./call.ts";
import type { CustomerIdentifier } from "./customer.ts";
import { NO_MATCH, scoreIdentity } from "./identity-score.ts";
import type { Tenant } from "./tenant.ts";

// A caller who asked not to be remembered is recognised by a keyed hash of their identifiers, never by the
// identifiers themselves. Keyed (HMAC-SHA-256 under a secret pepper), not a plain SHA-256 as for API keys: an
// API key is 24 random bytes, but a phone number has about 10^10 values, so a plain hash of one is reversed
// by trying them all. Without the pepper, which is stored sealed with the secrets key, a copy of the database
// reveals nothing. The tenant is part of the hash, so one number marked in two accounts gives two unrelated hashes.

export interface ForgetMeHasher {
  /** The hash of each identifier of the tenant, in the order given. */
  hashes(tenant: Tenant, identifiers: readonly CustomerIdentifier[]): string[];
}

export function createForgetMeHasher(pepper: () => Buffer): ForgetMeHasher {
  // One key object per pepper: given the pepper's bytes, createHmac imports them afresh on every hash, which
  // costs several times the hash itself (about 19 µs against 3 on this machine).
  let imported: { readonly pepper: Buffer; readonly key: KeyObject } | undefined;
  const keyOf = (bytes: Buffer): KeyObject => {
    if (imported?.pepper !== bytes) imported = { pepper: bytes, key: createSecretKey(bytes) };
    return imported.key;
  };
  return {
    hashes(tenant, identifiers) {
      const key = keyOf(pepper());
      return identifiers.map((id) =>
        createHmac("sha256", key)
          .update([tenant.accountId, tenant.mode, id.kind, id.namespace, id.value].join("\u0000"))
          .digest("hex"),
      );
    },
  };
}

/**
 * What a call from a caller marked "do not remember" is answered: a new
 * caller's, under a customer_ref nobody keeps (an end that sends it back
 * saves nothing either).
 */
export function strangerResult(callId: string, callStart: Date): StartCallResult {
  return {
    callId,
    customerRef: randomUUID(),
    callStart,
    identity: scoreIdentity(NO_MATCH),
    openIntents: [],
    variables: {},
    recentCalls: [],
    heldBackVariables: [],
  };
}
