import { type Billed, isQuotaExhausted } from "../../src/calls/billed.ts";
import { endCall } from "../../src/calls/end-call.ts";
import { createEndEventListeners } from "../../src/calls/end-event-listeners.ts";
import { startCall } from "../../src/calls/start-call.ts";
import type { StartCallInput } from "../../src/domain/call.ts";
import { systemClock } from "../../src/domain/clock.ts";
import { DomainError } from "../../src/domain/domain-error.ts";
import { createForgetMeHasher } from "../../src/domain/forget-me.ts";
import { DEFAULT_RETENTION_DAYS } from "../../src/domain/retention.ts";
import type { Database } from "../../src/store/database.ts";
import { BENCH_ALLOWANCE } from "../service/seed.ts";
import { type CallDriver, RequestFailure } from "./call-driver.ts";
import { BENCH_TENANT } from "./population.ts";

// The DB ceiling: the very statements of a start and an end, called in this
// process through the same store functions and Kysely database the server
// uses, with no HTTP, no JSON, no authentication or rate limit. Each is billed
// to the benchmark account as the service bills it (the quota guard's check
// before the handler, a cached read, is left out).

/** The benchmark marks nobody "do not remember": any key hashes the calls' identifiers as the service would. */
const BENCH_PEPPER = Buffer.alloc(32, 7);

export interface StoreDriverOptions {
  readonly defaultRegion?: string;
  /** False leaves the credit charge out of the statements, to measure what it costs (bench/experiments/embedded-ab.ts). */
  readonly charged?: boolean;
  /** The account of the calls: the SQL seed's unless the run made its own through the admin API. */
  readonly accountId?: string;
}

export function createStoreDriver(database: Database, options: StoreDriverOptions = {}): CallDriver {
  const { defaultRegion = "US", charged = true, accountId = BENCH_TENANT.accountId } = options;
  const tenant = { ...BENCH_TENANT, accountId };
  const deps = {
    db: database.db,
    clock: systemClock,
    defaultRegion,
    sensitiveData: "reject" as const,
    inflightAbort: database.inflightAbort,
    forgetMe: createForgetMeHasher(() => BENCH_PEPPER),
    endEventListeners: createEndEventListeners(systemClock),
  };
  const charge = charged ? { accountId, allowance: BENCH_ALLOWANCE } : undefined;
  return {
    name: "store",
    async start(call) {
      const input: StartCallInput = {
        callId: call.callId,
        identityHints: {
          ani: call.ani,
          dnis: call.dnis,
          externalIds: call.crmId === undefined ? {} : { crm_id: call.crmId },
        },
        lineType: call.mobile ? "mobile" : undefined,
      };
      try {
        return billedValue(await startCall(deps, { tenant, retentionDays: DEFAULT_RETENTION_DAYS, charge }, input))
          .customerRef;
      } catch (error) {
        throw asFailure(error);
      }
    },
    async end(call, customerRef) {
      const input = {
        callId: call.callId,
        customerRef,
        intent: call.intent,
        intentStatus: call.intentStatus,
        variables: call.variables,
        intentUpdates: [],
        variableUpdates: {},
      };
      try {
        billedValue(
          await endCall(deps, { tenant, retentionDays: DEFAULT_RETENTION_DAYS, charge }, input, call.idempotencyKey),
        );
      } catch (error) {
        throw asFailure(error);
      }
    },
    async close() {},
  };
}

/** A billed answer's value; the quota's refusal fails the request as the service's answer would. */
function billedValue<T>(billed: Billed<T>): T {
  if (isQuotaExhausted(billed)) throw new RequestFailure("domain resource_exhausted");
  return billed.value;
}

function asFailure(error: unknown): unknown {
  return error instanceof DomainError ? new RequestFailure(`domain ${error.code}`, error.message) : error;
}
