import { sql } from "kysely";
import type { Mode } from "../../domain/tenant.ts";
import type { Db } from "../database.ts";

export interface UsageCount {
  readonly accountId: string;
  readonly mode: Mode;
  readonly day: string;
  readonly billed: number;
  readonly refusedQuota: number;
  readonly refusedRate: number;
}

/** Adds counts to the days' rows in one statement; instances add, never overwrite. */
export async function addUsage(db: Db, counts: readonly UsageCount[]): Promise<void> {
  if (counts.length === 0) return;
  await db
    .insertInto("usage_days")
    .values(
      counts.map((c) => ({
        account_id: c.accountId,
        mode: c.mode,
        day: c.day,
        billed: c.billed,
        refused_quota: c.refusedQuota,
        refused_rate: c.refusedRate,
      })),
    )
    .onConflict((oc) =>
      oc.columns(["account_id", "mode", "day"]).doUpdateSet({
        billed: sql`usage_days.billed + excluded.billed`,
        refused_quota: sql`usage_days.refused_quota + excluded.refused_quota`,
        refused_rate: sql`usage_days.refused_rate + excluded.refused_rate`,
      }),
    )
    .execute();
}

export interface KeyUsageCount {
  readonly keyId: string;
  readonly day: string;
  readonly billed: number;
}

/** Adds billed calls to the keys' day rows in one statement; instances add, never overwrite. */
export async function addKeyUsage(db: Db, counts: readonly KeyUsageCount[]): Promise<void> {
  if (counts.length === 0) return;
  await db
    .insertInto("key_usage_days")
    .values(counts.map((c) => ({ key_id: c.keyId, day: c.day, billed: c.billed })))
    .onConflict((oc) =>
      oc.columns(["key_id", "day"]).doUpdateSet({ billed: sql`key_usage_days.billed + excluded.billed` }),
    )
    .execute();
}

/** Billed calls per key of the account from `fromDay` on ("2026-11-01"), the account's keys that billed any. */
export async function listKeyUsage(
  db: Db,
  accountId: string,
  fromDay: string,
): Promise<{ keyId: string; billed: number }[]> {
  const rows = await db
    .selectFrom("key_usage_days as u")
    .innerJoin("api_keys as k", "k.id", "u.key_id")
    .select(["u.key_id", sql<string>`sum(u.billed)`.as("billed")])
    .where("k.account_id", "=", accountId)
    .where("u.day", ">=", fromDay)
    .groupBy("u.key_id")
    .execute();
  return rows.map((r) => ({ keyId: r.key_id, billed: Number(r.billed) }));
}

/** The account's days from `fromDay` on ("2026-11-01"), days as text. */
export async function listUsageDays(db: Db, accountId: string, fromDay: string): Promise<UsageCount[]> {
  const rows = await db
    .selectFrom("usage_days")
    .select(["mode", sql<string>`to_char(day, 'YYYY-MM-DD')`.as("day"), "billed", "refused_quota", "refused_rate"])
    .where("account_id", "=", accountId)
    .where("day", ">=", fromDay)
    .execute();
  return rows.map((r) => ({
    accountId,
    mode: r.mode,
    day: r.day,
    billed: r.billed,
    refusedQuota: r.refused_quota,
    refusedRate: r.refused_rate,
  }));
}

/** Records when keys were last used, in one statement. */
export async function touchKeys(db: Db, uses: ReadonlyMap<string, Date>): Promise<void> {
  if (uses.size === 0) return;
  const values = sql.join([...uses].map(([id, at]) => sql`(${id}, ${at.toISOString()}::timestamptz)`));
  await sql`
    update api_keys set last_used_at = v.at
    from (values ${values}) as v (id, at)
    where api_keys.id = v.id and (api_keys.last_used_at is null or api_keys.last_used_at < v.at)
  `.execute(db);
}
