import type { Identity } from "./call.ts";
import { type MatchSignals, scoreIdentity } from "./identity-score.ts";

export const RECENT_CALL_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface Candidate {
  readonly customerId: string;
  readonly signals: MatchSignals;
  readonly lastCallAt: Date;
}

export interface Match {
  readonly customerId: string;
  readonly identity: Identity;
}

/**
 * When hints point at different customers (the number at one, an account id
 * at another) the highest score wins; a tie goes to the customer who called
 * most recently, then to the smaller id so the choice is stable.
 */
export function chooseCandidate(candidates: readonly Candidate[]): Match | undefined {
  let best: (Match & { lastCallAt: Date }) | undefined;
  for (const candidate of candidates) {
    const identity = scoreIdentity(candidate.signals);
    if (best === undefined || beats(identity, candidate, best)) {
      best = { customerId: candidate.customerId, identity, lastCallAt: candidate.lastCallAt };
    }
  }
  return best && { customerId: best.customerId, identity: best.identity };
}

function beats(identity: Identity, candidate: Candidate, best: Match & { lastCallAt: Date }): boolean {
  if (identity.confidence !== best.identity.confidence) return identity.confidence > best.identity.confidence;
  const recency = candidate.lastCallAt.getTime() - best.lastCallAt.getTime();
  if (recency !== 0) return recency > 0;
  return candidate.customerId < best.customerId;
}

export function isRecent(lastCallAt: Date, now: Date): boolean {
  return now.getTime() - lastCallAt.getTime() <= RECENT_CALL_WINDOW_MS;
}
