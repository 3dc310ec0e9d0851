import { DomainError } from "../src/domain/domain-error.ts";
import { validateEndCall } from "../src/domain/validate-end.ts";
import { validateStartCall } from "../src/domain/validate-start.ts";
import type { Charge } from "../src/store/charge.ts";
import type { Database } from "../src/store/database.ts";
import { endCall } from "../src/store/end-call.ts";
import { startCall } from "../src/store/start-call.ts";
import { type CallDriver, RequestFailure } from "./call-driver.ts";
import { BENCH_TENANT } from "./population.ts";
import { BENCH_ALLOWANCE } from "./seed.ts";

// The DB ceiling: the very statements of a start and an end, called in this
// process through the same store functions and Kysely database the server
// uses, with no HTTP, no JSON, no authentication or rate limit. Each is billed
// to the benchmark account as the service bills it (the quota guard's check
// before the handler, a cached read, is left out).

export function createStoreDriver(database: Database, defaultRegion = "US"): CallDriver {
  const store = { db: database.db, defaultRegion, inflightAbort: database.inflightAbort };
  const charge = (): Charge => ({
    accountId: BENCH_TENANT.accountId,
    allowance: BENCH_ALLOWANCE,
    charged() {},
    refused() {},
  });
  return {
    name: "store",
    async start(call) {
      const input = validateStartCall({
        callId: call.callId,
        identityHints: { ani: call.ani, externalIds: call.crmId === undefined ? {} : { crm_id: call.crmId } },
        lineType: call.mobile ? "mobile" : undefined,
      });
      try {
        return (await startCall(store, BENCH_TENANT, input, { now: new Date(), charge: charge() })).customerRef;
      } catch (error) {
        throw asFailure(error);
      }
    },
    async end(call, customerRef) {
      const command = validateEndCall(
        {
          callId: call.callId,
          customerRef,
          intent: call.intent,
          intentStatus: call.intentStatus,
          variables: call.variables,
          intentUpdates: [],
          variableUpdates: {},
        },
        "reject",
      );
      try {
        await endCall(store, BENCH_TENANT, command, call.idempotencyKey, { now: new Date(), charge: charge() });
      } catch (error) {
        throw asFailure(error);
      }
    },
    async close() {},
  };
}

function asFailure(error: unknown): unknown {
  return error instanceof DomainError ? new RequestFailure(`domain ${error.code}`, error.message) : error;
}
