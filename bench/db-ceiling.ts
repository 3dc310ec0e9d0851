import { DomainError } from "../src/domain/domain-error.ts";
import { validateEndCall } from "../src/domain/validate-end.ts";
import { validateStartCall } from "../src/domain/validate-start.ts";
import type { Db } from "../src/store/database.ts";
import { endCall } from "../src/store/end-call.ts";
import { startCall } from "../src/store/start-call.ts";
import { type CallDriver, RequestFailure } from "./call-driver.ts";
import { BENCH_TENANT } from "./population.ts";

// The DB ceiling: the very transactions of a start and an end, called in
// this process through the same store functions and Kysely database the
// server uses, with no HTTP, no JSON, no authentication, rate limit or quota
// (no charge is passed, so the quota statement the service runs inside each
// transaction is not part of it).

export function createStoreDriver(db: Db, defaultRegion = "US"): CallDriver {
  const store = { db, defaultRegion };
  return {
    name: "store",
    async start(call) {
      const input = validateStartCall({
        callId: call.callId,
        identityHints: { ani: call.ani, externalIds: call.crmId === undefined ? {} : { crm_id: call.crmId } },
        lineType: call.mobile ? "mobile" : undefined,
      });
      try {
        return (await startCall(store, BENCH_TENANT, input, { now: new Date() })).customerRef;
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
        await endCall(store, BENCH_TENANT, command, call.idempotencyKey, { now: new Date() });
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
