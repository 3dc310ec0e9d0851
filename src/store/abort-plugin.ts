import type { KyselyPlugin } from "kysely";

/**
 * Stops a transaction's work once its request is cancelled or past its
 * deadline: every later statement throws the signal's reason, so the
 * transaction rolls back instead of finishing work nobody waits for. A
 * statement already running is bounded by the statement timeout.
 */
export function abortOnSignal(signal: AbortSignal): KyselyPlugin {
  return {
    transformQuery(args) {
      signal.throwIfAborted();
      return args.node;
    },
    async transformResult(args) {
      return args.result;
    },
  };
}
