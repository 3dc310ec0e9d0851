import type { FastifyBaseLogger } from "fastify";
import type { EndEventListeners } from "./calls/end-event-listeners.ts";
import type { Config } from "./config.ts";
import type { Clock } from "./domain/clock.ts";
import type { ForgetMeHasher } from "./domain/forget-me.ts";
import type { RateLimiter } from "./domain/rate-limiter.ts";
import type { ErasureCompaction } from "./jobs/erasure-compaction.ts";
import type { AdmissionControl } from "./pipeline/admission-control.ts";
import type { Metrics } from "./pipeline/metrics-registry.ts";
import type { RequestLog } from "./pipeline/request-log-sink.ts";
import type { KeyVerifier, WebhookVerifier } from "./pipeline/verifiers.ts";
import type { SecretBox } from "./secrets/secret-box.ts";
import type { Database } from "./store/database.ts";
import type { UsageMeter } from "./usage/usage-meter.ts";

/** Everything a request may need, built once at start-up and passed explicitly. */
export interface AppContext {
  readonly config: Config;
  readonly database: Database;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  readonly keys: KeyVerifier;
  readonly webhooks: WebhookVerifier;
  readonly rateLimiter: RateLimiter;
  /** Seals and opens the secrets stored for reading back (docs/security.md). */
  readonly secrets: SecretBox;
  /** Undefined when METRICS=off. */
  readonly metrics: Metrics | undefined;
  /** SHA-256 of the admin token in force. */
  readonly adminTokenHash: string;
  /** The instance's limit on calls in flight; health reads whether it is shedding. */
  readonly admission: AdmissionControl;
  /** Billed and refused calls and keys' last use, counted in memory and written in batches. */
  readonly meter: UsageMeter;
  /** The accounts' API requests for the dashboard's Requests page, recorded in memory and written in batches. */
  readonly requestLog: RequestLog;
  /** Hashes identifiers for the "do not remember" marks; usable once the server is ready (its key is stored). */
  readonly forgetMe: ForgetMeHasher;
  /** Vacuums and checkpoints after erasures, batched. */
  readonly erasures: ErasureCompaction;
  /** The tenants whose ends lately found an event endpoint: their ends are written with their events at once. */
  readonly endEventListeners: EndEventListeners;
}
