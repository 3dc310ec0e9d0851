import { Code, ConnectError } from "@connectrpc/connect";
import { DomainError } from "../domain/domain-error.ts";
import { isDatabaseUnavailable } from "../store/engine/database-errors.ts";
import { domainErrorToConnect } from "./connect-errors.ts";
import { RETRY_AFTER_SECONDS, retryAfter } from "./retry-after.ts";

/**
 * Any error as its client may see it, whatever the protocol. A ConnectError
 * is already public; a domain error maps to its code; a call whose signal was
 * aborted ran out of time; a database that cannot be reached is a 503 the
 * client may retry; anything else is a bug and says nothing of its internals.
 * Logging what was not public is the caller's part.
 */
export function publicError(error: unknown, signal?: AbortSignal): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof DomainError) return domainErrorToConnect(error);
  if (signal?.aborted) {
    return new ConnectError("The request was cancelled or its deadline passed", Code.DeadlineExceeded);
  }
  if (isDatabaseUnavailable(error)) {
    return new ConnectError(
      "Service temporarily unavailable",
      Code.Unavailable,
      retryAfter(RETRY_AFTER_SECONDS.unavailable),
    );
  }
  return new ConnectError("Internal server error", Code.Internal);
}

/** Whether publicError hides this error's own message: it needs logging to be seen at all. */
export function isUnexpected(error: unknown): boolean {
  return !(error instanceof ConnectError || error instanceof DomainError);
}
