import { sql } from "kysely";
import type { CustomerFigures, IssueState } from "../../domain/contact-figures.ts";
import type { Db } from "../database.ts";

// What the contact-figures job keeps of each customer to count their next call: the last call and each
// intent's issue. The rows go with the customer by the foreign keys' cascade (an erasure, the retention sweep,
// the merged-away side of a merge).

export interface CustomerKey {
  readonly customerId: string;
  readonly accountId: string;
  readonly mode: string;
}

/**
 * Key-share locks the customers, in id order: the order a merge locks its two (src/store/customer-changes.ts),
 * so the job and a merge never each hold what the other waits for. The rows the job then writes reference them;
 * the ids returned are the customers still there (not erased or merged away), which the lock keeps there until
 * the batch commits.
 */
export async function lockCustomers(db: Db, customerIds: readonly string[]): Promise<Set<string>> {
  const { rows } = await sql<{ id: string }>`
    select id from customers where id = any(${[...customerIds]}::uuid[]) order by id for key share`.execute(db);
  return new Set(rows.map((row) => row.id));
}

/** The kept figures of the customers, an empty one for a customer without. */
export async function loadCustomerFigures(
  db: Db,
  customerIds: readonly string[],
): Promise<Map<string, CustomerFigures>> {
  const figures = new Map<string, CustomerFigures>(
    customerIds.map((id) => [id, { caller: undefined, issues: new Map<string, IssueState>() }]),
  );
  const ids = [...figures.keys()];
  const callers = await sql<{ customer_id: string; last_call_at: Date; last_call_intents: string[] }>`
    select customer_id, last_call_at, last_call_intents from contact_figures_callers
    where customer_id = any(${ids}::uuid[])
  `.execute(db);
  for (const row of callers.rows) {
    const entry = figures.get(row.customer_id);
    if (entry) entry.caller = { lastCallAt: row.last_call_at, lastCallIntents: row.last_call_intents };
  }
  const issues = await sql<{
    customer_id: string;
    intent: string;
    opened_at: Date;
    attempts: number;
    resolved_at: Date | null;
    first_contact: boolean;
  }>`
    select customer_id, intent, opened_at, attempts, resolved_at, first_contact from contact_figures_issues
    where customer_id = any(${ids}::uuid[])
  `.execute(db);
  for (const row of issues.rows) {
    figures.get(row.customer_id)?.issues.set(row.intent, {
      openedAt: row.opened_at,
      attempts: row.attempts,
      resolvedAt: row.resolved_at ?? undefined,
      firstContact: row.first_contact,
    });
  }
  return figures;
}

/** The figures as loaded, one entry per customer's caller row and per issue, to tell what a batch changed. */
export type SavedForm = ReadonlyMap<string, string>;

export function savedForm(figures: ReadonlyMap<string, CustomerFigures>): SavedForm {
  const form = new Map<string, string>();
  for (const [id, { caller, issues }] of figures) {
    if (caller) form.set(callerEntry(id), JSON.stringify(caller));
    for (const [intent, issue] of issues) form.set(issueEntry(id, intent), JSON.stringify(issue));
  }
  return form;
}

const callerEntry = (customerId: string) => JSON.stringify([customerId]);
const issueEntry = (customerId: string, intent: string) => JSON.stringify([customerId, intent]);

/**
 * Saves what changed of the customers' figures since `loaded`. Only the customers still there, as
 * lockCustomers found them: what a customer erased or merged away held goes with it. An issue written again
 * unchanged would cost an index entry and the open issues' trigger twice, for nothing.
 */
export async function saveCustomerFigures(
  db: Db,
  customers: readonly CustomerKey[],
  figures: ReadonlyMap<string, CustomerFigures>,
  loaded: SavedForm,
): Promise<void> {
  const changed = (entry: string, value: unknown) => loaded.get(entry) !== JSON.stringify(value);
  const callers = customers.flatMap((key) => {
    const caller = figures.get(key.customerId)?.caller;
    return caller && changed(callerEntry(key.customerId), caller) ? [{ id: key.customerId, ...caller }] : [];
  });
  const issues = customers.flatMap((key) =>
    [...(figures.get(key.customerId)?.issues ?? [])]
      .filter(([intent, issue]) => changed(issueEntry(key.customerId, intent), issue))
      .map(([intent, issue]) => ({ key, intent, issue })),
  );
  if (callers.length > 0) {
    await sql`
      insert into contact_figures_callers (customer_id, last_call_at, last_call_intents)
      select u.id, u.at, array(select jsonb_array_elements_text(u.intents))
      from unnest(${callers.map((c) => c.id)}::uuid[], ${callers.map((c) => c.lastCallAt)}::timestamptz[],
        ${callers.map((c) => JSON.stringify(c.lastCallIntents))}::jsonb[]) as u (id, at, intents)
      on conflict (customer_id) do update set
        last_call_at = excluded.last_call_at, last_call_intents = excluded.last_call_intents
    `.execute(db);
  }
  if (issues.length > 0) {
    await sql`
      insert into contact_figures_issues
        (customer_id, intent, account_id, mode, opened_at, attempts, resolved_at, first_contact)
      select u.* from unnest(
        ${issues.map((i) => i.key.customerId)}::uuid[], ${issues.map((i) => i.intent)}::text[],
        ${issues.map((i) => i.key.accountId)}::text[], ${issues.map((i) => i.key.mode)}::text[],
        ${issues.map((i) => i.issue.openedAt)}::timestamptz[], ${issues.map((i) => i.issue.attempts)}::int[],
        ${issues.map((i) => i.issue.resolvedAt ?? null)}::timestamptz[], ${issues.map((i) => i.issue.firstContact)}::boolean[]
      ) as u (customer_id, intent, account_id, mode, opened_at, attempts, resolved_at, first_contact)
      on conflict (customer_id, intent) do update set
        opened_at = excluded.opened_at, attempts = excluded.attempts, resolved_at = excluded.resolved_at,
        first_contact = excluded.first_contact
    `.execute(db);
  }
}
