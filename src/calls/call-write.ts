import type { InflightQueryAbortStrategy } from "kysely";
import type { Clock } from "../domain/clock.ts";
import { DomainError, type FieldIssue } from "../domain/domain-error.ts";
import type { ForgetMeHasher } from "../domain/forget-me.ts";
import type { SensitiveDataPolicy } from "../domain/sensitive-data.ts";
import type { Tenant } from "../domain/tenant.ts";
import { creditsLeft, NOT_COUNTED } from "../store/billing/charge.ts";
import type { CallStatement, Charge, Refused } from "../store/calls/call-statement.ts";
import type { Db } from "../store/database.ts";
import { isCustomerGone } from "../store/database.ts";
import { type ChargeOutcome, NoCreditLeftError } from "./billed.ts";
import type { EndEventListeners } from "./end-event-listeners.ts";

// A call's write, the same for start, end, identify and the billed customer
// operations: what the use cases need, how its statement runs, what its
// refusals mean (the store only reports them), its retries, and its charge's
// outcome (src/calls/billed.ts).

/** What the call use cases need of the service; per request they take a CallRequest. */
export interface CallDeps {
  readonly db: Db;
  readonly clock: Clock;
  /** Country used to read caller numbers given without a country code. */
  readonly defaultRegion: string;
  readonly sensitiveData: SensitiveDataPolicy;
  /** What stops a statement already sent when its request is aborted (see createDatabase). */
  readonly inflightAbort: InflightQueryAbortStrategy;
  /** Hashes a call's identifiers to find a "do not remember" mark. */
  readonly forgetMe: ForgetMeHasher;
  /** Which tenants' ends this instance writes with their events at once (end-event-listeners.ts). */
  readonly endEventListeners: EndEventListeners;
}

/** Who asks, and how the request is bounded and billed. */
export interface CallRequest {
  readonly tenant: Tenant;
  /** The account's context retention in days: only customers with a call within it are matched. */
  readonly retentionDays: number;
  /** Taken by the call's own write when it commits (set by the quota guard); its outcome is returned. */
  readonly charge?: Charge;
  /** Aborted when nobody waits for the answer any longer. */
  readonly signal?: AbortSignal;
  /** Epoch ms (real time) after which the call's write must not commit: its client was already answered. */
  readonly deadline?: number;
  /**
   * What the host could not decode in the request (a wrong type, an unknown field): refused in one answer
   * with what the use case's own validation finds, so a client learns of every offending field at once.
   */
  readonly decodeIssues?: readonly FieldIssue[];
}

/**
 * How each statement of a call runs. A start and an end each commit with
 * their own last statement, so work nobody waits for any longer is stopped
 * statement by statement: one not yet sent is not sent (also after waiting
 * for a connection), and on PostgreSQL one that is running is cancelled,
 * which rolls it back.
 */
export function callStatementOf(inflightAbort: InflightQueryAbortStrategy, request: CallRequest): CallStatement {
  return {
    options: { signal: request.signal, inflightQueryAbortStrategy: inflightAbort },
    charge: request.charge,
    deadline: request.deadline,
  };
}

/** A write's result, and what became of its charge (none when it took no credit). */
export interface Written<T> {
  readonly written: T;
  readonly charge?: ChargeOutcome;
}

/**
 * Runs a billed write, `write` given the charge to take. The first run takes
 * its credit from the charge's random slot alone; undone because that slot was
 * empty (or emptied meanwhile), it runs again, from any slot, while the account
 * has a credit left (each time another charge took one, so this ends). One
 * undone for want of credit throws NoCreditLeftError (billedResult answers it);
 * one undone at its deadline saved nothing, which the client may retry.
 */
export async function writeCall<T extends object>(
  db: Db,
  charge: Charge | undefined,
  now: Date,
  write: (charge: Charge | undefined) => Promise<T | Refused>,
): Promise<Written<T>> {
  let taking = charge;
  for (;;) {
    const written = await write(taking);
    if (!isRefused(written)) {
      // A write that took a credit reports about the credits left; one that wrote nothing took none.
      const left = "creditsLeft" in written ? written.creditsLeft : null;
      if (charge === undefined || typeof left !== "number") return { written };
      return { written, charge: { charged: true, creditsLeft: left === NOT_COUNTED ? undefined : left } };
    }
    if (written.refused === "past_deadline") {
      throw new DomainError("unavailable", "Not done within the time budget; nothing was saved, retry later");
    }
    // A look at the slots costs less than the write, and near zero it usually finds none.
    if (written.refused === "slot_emptied" && charge !== undefined) {
      if ((await creditsLeft(db, charge.accountId, now, charge.allowance)) > 0) {
        if (taking?.fromAnySlot !== true) taking = { ...charge, fromAnySlot: true };
        continue;
      }
    }
    throw new NoCreditLeftError();
  }
}

/** `statement` billed by `charge`: the statement itself on a write's first run, when the charge is its own. */
export function billedBy(statement: CallStatement, charge: Charge | undefined): CallStatement {
  return charge === statement.charge ? statement : { ...statement, charge };
}

function isRefused(written: object): written is Refused {
  return "refused" in written;
}

/** Thrown by a use case whose write found its chosen customer gone without the database refusing it. */
export class CustomerGoneError extends Error {
  constructor() {
    super("the chosen customer is gone");
    this.name = "CustomerGoneError";
  }
}

/**
 * Runs a call's work again, once, when its write found the customer it had
 * chosen gone: erased or merged away between the look and the write (the
 * write was undone whole). The second look sees the erasure or follows the
 * alias to the survivor; a customer that changes again meanwhile is a 503.
 */
export async function retryWhenCustomerGone<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!gone(error)) throw error;
  }
  try {
    return await work();
  } catch (error) {
    if (!gone(error)) throw error;
    throw new DomainError("unavailable", "The customer changed while the call was saved; retry the request");
  }
}

function gone(error: unknown): boolean {
  return error instanceof CustomerGoneError || isCustomerGone(error);
}
