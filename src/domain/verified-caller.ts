import type { Identity } from "./call.ts";

// A variable saved with requires_verification (a home address, the last
// digits of a card) is shared only with a caller whose identity was proven,
// never with one matched by a number, which anyone can present or spoof:
// the client sent the customer_ref it was given (it already knows who the
// caller is), or it verified the caller itself and said so at identify.

export function isVerifiedCaller(identity: Identity): boolean {
  return identity.sources.includes("verified") || identity.sources.includes("customer_ref");
}
