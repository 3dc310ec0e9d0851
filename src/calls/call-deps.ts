import type { InflightQueryAbortStrategy } from "kysely";
import type { AppContext } from "../context.ts";
import type { Clock } from "../domain/clock.ts";
import type { SensitiveDataPolicy } from "../domain/sensitive-data.ts";
import type { Tenant } from "../domain/tenant.ts";
import type { Charge } from "../store/billing/charge.ts";
import type { Db } from "../store/engine/database.ts";

// What the call use cases need: the service's own dependencies, and per
// request who asks and how the request is bounded.

export interface CallDeps {
  readonly db: Db;
  readonly clock: Clock;
  /** Country used to read caller numbers given without a country code. */
  readonly defaultRegion: string;
  readonly sensitiveData: SensitiveDataPolicy;
  /** What stops a statement already sent when its request is aborted (see createDatabase). */
  readonly inflightAbort: InflightQueryAbortStrategy;
}

export interface CallRequest {
  readonly tenant: Tenant;
  /** The bill, taken by the call's own write when it commits (set by the quota guard). */
  readonly charge?: Charge;
  /** Aborted when nobody waits for the answer any longer. */
  readonly signal?: AbortSignal;
  /** Epoch ms (real time) after which the call's write must not commit: its client was already answered. */
  readonly deadline?: number;
}

export function callDepsOf(app: AppContext): CallDeps {
  return {
    db: app.database.db,
    clock: app.clock,
    defaultRegion: app.config.defaultRegion,
    sensitiveData: app.config.sensitiveData,
    inflightAbort: app.database.inflightAbort,
  };
}
