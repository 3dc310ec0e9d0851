import type { Clock } from "../domain/clock.ts";
import { listKeyUsage } from "../store/billing/usage-repository.ts";
import type { Db } from "../store/database.ts";
import type { UsageMeter } from "./usage-meter.ts";

/** Billed calls of each of the account's keys in this period (the UTC month), this instance's counts written first. */
export async function keyUsageThisPeriod(
  deps: { db: Db; clock: Clock; meter: UsageMeter },
  accountId: string,
): Promise<Map<string, number>> {
  await deps.meter.flush();
  const now = deps.clock.now();
  const periodStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
  const rows = await listKeyUsage(deps.db, accountId, periodStart);
  return new Map(rows.map((r) => [r.keyId, r.billed]));
}
