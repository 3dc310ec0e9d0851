import type { Clock } from "../domain/clock.ts";
import { DAY_MS } from "../domain/limits.ts";
import { REQUEST_LOG_DAYS } from "../jobs/sweeper.ts";
import type { RequestLog } from "../pipeline/request-log-sink.ts";
import type { Db } from "../store/database.ts";
import { type LoggedRequest, listRecentRequests } from "../store/request-log-repository.ts";

/** How many requests the Requests page shows at most. */
export const RECENT_REQUESTS_SHOWN = 1000;

/**
 * The account's latest API requests, newest first: at most 1,000 and none
 * older than the 7 days kept (rows the sweeper has not reached yet included).
 */
export async function recentRequests(
  deps: { db: Db; clock: Clock; requestLog: RequestLog },
  accountId: string,
): Promise<LoggedRequest[]> {
  // This instance's unwritten rows first, so a request just made shows at once.
  await deps.requestLog.flush();
  const since = new Date(deps.clock.now().getTime() - REQUEST_LOG_DAYS * DAY_MS);
  return listRecentRequests(deps.db, accountId, since, RECENT_REQUESTS_SHOWN);
}
