import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyBaseLogger } from "fastify";
import { isDatabaseUnavailable, isStartupParameterRefused } from "./database/database-errors.ts";

// Start-up order is not ours to choose: a PostgreSQL started beside the service
// may accept connections seconds later. Unreachable is retried with capped
// exponential backoff; any other failure (a bad password, a broken migration) is final.

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5_000;

export class DatabaseWaitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DatabaseWaitError";
  }
}

export interface WaitOptions {
  readonly log: FastifyBaseLogger;
  /** 0 waits for ever. */
  readonly deadlineMs: number;
  readonly signal: AbortSignal;
}

/** Runs `attempt` until it succeeds, the database proves unusable, the deadline passes or `signal` aborts. */
export async function waitForDatabase<T>(attempt: () => Promise<T>, options: WaitOptions): Promise<T> {
  const startedAt = performance.now();
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      const reason = reasonOf(error);
      if (!isRetryable(error)) throw new DatabaseWaitError(`database start-up failed: ${reason}${hintFor(error)}`);
      const waitedMs = performance.now() - startedAt;
      const leftMs = options.deadlineMs > 0 ? options.deadlineMs - waitedMs : Number.POSITIVE_INFINITY;
      if (leftMs <= 0) {
        throw new DatabaseWaitError(
          `database not reachable after ${Math.round(waitedMs / 1000)} s (STARTUP_DB_WAIT_S=${options.deadlineMs / 1000}): ${reason}`,
        );
      }
      const retryInMs = Math.min(FIRST_DELAY_MS * 2 ** (n - 1), MAX_DELAY_MS, leftMs);
      // One line per attempt and no stack: an outage at start-up is expected, not a bug.
      options.log.warn({ attempt: n, retryInMs: Math.round(retryInMs), reason }, "database not reachable yet");
      await sleep(retryInMs, undefined, { signal: options.signal });
    }
  }
}

function isRetryable(error: unknown): boolean {
  if (isStartupParameterRefused(error)) return false;
  // EAI_AGAIN: a container's host name not resolvable yet.
  return isDatabaseUnavailable(error) || (error as { code?: unknown })?.code === "EAI_AGAIN";
}

function hintFor(error: unknown): string {
  return isStartupParameterRefused(error)
    ? " (behind PgBouncer or another pooler, set DATABASE_POOLER=session or DATABASE_POOLER=transaction)"
    : "";
}

function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const message = error.message.replace(/\s*\n\s*/g, " ") || error.name;
  return typeof code === "string" && !message.includes(code) ? `${code} ${message}` : message;
}
