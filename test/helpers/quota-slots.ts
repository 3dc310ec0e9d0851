import { type Kysely, sql } from "kysely";
import { QUOTA_SLOTS } from "../../src/domain/quota-slots.ts";

// Puts an account's credits in chosen slots, as a month of calls might have
// left them: the state near exhaustion, which no sequence of API calls can
// arrange on purpose (each call picks its slot at random).

/** Sets slot s to `credits[s]` (0 for a slot not named) in `period` ("2026-11"). */
export async function placeCredits(
  db: Kysely<any>,
  accountId: string,
  period: string,
  credits: Readonly<Record<number, number>>,
): Promise<void> {
  const counts = Array.from({ length: QUOTA_SLOTS }, (_, slot) => credits[slot] ?? 0);
  await sql`
    update quota_slots set remaining = (${counts}::int[])[slot + 1], period = ${period}
    where account_id = ${accountId}
  `.execute(db);
}

/** The account's slots as stored, in slot order. */
export async function slotsOf(db: Kysely<any>, accountId: string): Promise<{ period: string; remaining: number }[]> {
  const { rows } = await sql<{ period: string; remaining: number }>`
    select period, remaining from quota_slots where account_id = ${accountId} order by slot
  `.execute(db);
  return rows;
}
