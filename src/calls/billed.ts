// What a billed use case answers: its value and what became of its charge, or
// the quota's refusal. The use case returns it; the method that called it
// (billedAnswer in src/rpc/caller-context-service.ts) hands the outcome to the
// quota guard, which answers the refusal and the credits left. Nothing the use
// case was given is written on.

/**
 * What became of a request's charge: taken, or refused for want of credit. A
 * charge that read the account's slots says about how many credits are left;
 * one that took its credit from its own slot read no other (the quota guard
 * then counts from what it last saw).
 */
export type ChargeOutcome =
  | { readonly charged: true; readonly creditsLeft: number | undefined }
  | { readonly charged: false };

/** A billed use case's value and its charge's outcome (none when it took no credit). */
export interface Done<T> {
  readonly value: T;
  readonly charge?: ChargeOutcome;
}

/** The use case wrote nothing: the account has no credit left. */
export interface QuotaExhausted {
  readonly quotaExhausted: true;
  readonly charge: { readonly charged: false };
}

export type Billed<T> = Done<T> | QuotaExhausted;

export const QUOTA_EXHAUSTED: QuotaExhausted = { quotaExhausted: true, charge: { charged: false } };

export function isQuotaExhausted<T>(billed: Billed<T>): billed is QuotaExhausted {
  return "quotaExhausted" in billed;
}

/**
 * Thrown by a billed write that found no credit left, so that whatever it was part of (a transaction, the rest of
 * the use case) is undone; billedResult turns it into the use case's QuotaExhausted answer.
 */
export class NoCreditLeftError extends Error {
  constructor() {
    super("no credit left");
    this.name = "NoCreditLeftError";
  }
}

/** Runs a billed use case's work: its value and charge, or QuotaExhausted when a write found no credit left. */
export async function billedResult<T>(work: () => Promise<Done<T>>): Promise<Billed<T>> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof NoCreditLeftError) return QUOTA_EXHAUSTED;
    throw error;
  }
}

/** The later of two charge outcomes of one use case: a write that took no credit says nothing new. */
export function laterCharge(earlier: ChargeOutcome | undefined, later: ChargeOutcome | undefined) {
  return later ?? earlier;
}
