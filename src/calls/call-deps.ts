import type { InflightQueryAbortStrategy } from "kysely";
import type { Clock } from "../domain/clock.ts";
import type { ForgetMeHasher } from "../domain/forget-me.ts";
import type { SensitiveDataPolicy } from "../domain/sensitive-data.ts";
import type { Db } from "../store/engine/database.ts";

/** What the call use cases need of the service; per request they take a CallRequest (call-write.ts). */
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
}
