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

/** The figures as loaded: each customer's caller row and issue rows, what they held and where they are. */
export type SavedForm = ReadonlyMap<string, { readonly form: string; readonly rowId: string }>;

export interface LoadedFigures {
  /** Each customer's figures, an empty one for a customer without. */
  readonly figures: Map<string, CustomerFigures>;
  /** What saveCustomerFigures compares against and writes back to. */
  readonly loaded: SavedForm;
}

/** The kept figures of the customers, with the rows they were read from. */
export async function loadCustomerFigures(db: Db, customerIds: readonly string[]): Promise<LoadedFigures> {
  const figures = new Map<string, CustomerFigures>(
    customerIds.map((id) => [id, { caller: undefined, issues: new Map<string, IssueState>() }]),
  );
  const loaded = new Map<string, { form: string; rowId: string }>();
  const ids = [...figures.keys()];
  const callers = await sql<{ row_id: string; customer_id: string; last_call_at: Date; last_call_intents: string[] }>`
    select ctid::text as row_id, customer_id, last_call_at, last_call_intents from contact_figures_callers
    where customer_id = any(${ids}::uuid[])
  `.execute(db);
  for (const row of callers.rows) {
    const entry = figures.get(row.customer_id);
    if (!entry) continue;
    entry.caller = { lastCallAt: row.last_call_at, lastCallIntents: row.last_call_intents };
    loaded.set(callerEntry(row.customer_id), { form: JSON.stringify(entry.caller), rowId: row.row_id });
  }
  const issues = await sql<{
    row_id: string;
    customer_id: string;
    intent: string;
    opened_at: Date;
    attempts: number;
    resolved_at: Date | null;
    first_contact: boolean;
  }>`
    select ctid::text as row_id, customer_id, intent, opened_at, attempts, resolved_at, first_contact
    from contact_figures_issues
    where customer_id = any(${ids}::uuid[])
  `.execute(db);
  for (const row of issues.rows) {
    const issue: IssueState = {
      openedAt: row.opened_at,
      attempts: row.attempts,
      resolvedAt: row.resolved_at ?? undefined,
      firstContact: row.first_contact,
    };
    figures.get(row.customer_id)?.issues.set(row.intent, issue);
    loaded.set(issueEntry(row.customer_id, row.intent), { form: JSON.stringify(issue), rowId: row.row_id });
  }
  return { figures, loaded };
}

const callerEntry = (customerId: string) => JSON.stringify([customerId]);
const issueEntry = (customerId: string, intent: string) => JSON.stringify([customerId, intent]);

/**
 * Saves what changed of the customers' figures since they were loaded. Only the customers still there, as
 * lockCustomers found them: what a customer erased or merged away held goes with it. An issue written again
 * unchanged would cost an index entry and the open issues' trigger twice, for nothing. A row that was loaded is
 * written back where it was read, by its ctid (the customers' key-share locks, held since before the load, keep
 * it there: nothing else writes these rows); only a new one goes through `insert … on conflict`, whose check would
 * otherwise descend the primary key once more per row.
 */
export async function saveCustomerFigures(
  db: Db,
  customers: readonly CustomerKey[],
  figures: ReadonlyMap<string, CustomerFigures>,
  loaded: SavedForm,
): Promise<void> {
  const changed = (entry: string, value: unknown) => loaded.get(entry)?.form !== JSON.stringify(value);
  const rowIdOf = (entry: string) => loaded.get(entry)?.rowId ?? null;
  const callers = customers.flatMap((key) => {
    const caller = figures.get(key.customerId)?.caller;
    const entry = callerEntry(key.customerId);
    return caller && changed(entry, caller) ? [{ id: key.customerId, rowId: rowIdOf(entry), ...caller }] : [];
  });
  const issues = customers.flatMap((key) =>
    [...(figures.get(key.customerId)?.issues ?? [])]
      .filter(([intent, issue]) => changed(issueEntry(key.customerId, intent), issue))
      .map(([intent, issue]) => ({ key, intent, issue, rowId: rowIdOf(issueEntry(key.customerId, intent)) })),
  );
  if (callers.length > 0) {
    await sql`
      with saved as (
        select * from unnest(${callers.map((c) => c.rowId)}::tid[], ${callers.map((c) => c.id)}::uuid[],
          ${callers.map((c) => c.lastCallAt)}::timestamptz[],
          ${callers.map((c) => JSON.stringify(c.lastCallIntents))}::jsonb[]) as u (row_id, id, at, intents)
      ),
      updated as (
        update contact_figures_callers c
        set last_call_at = saved.at, last_call_intents = array(select jsonb_array_elements_text(saved.intents))
        from saved where c.ctid = saved.row_id
        returning c.customer_id
      )
      insert into contact_figures_callers (customer_id, last_call_at, last_call_intents)
      select saved.id, saved.at, array(select jsonb_array_elements_text(saved.intents))
      from saved where not exists (select 1 from updated where updated.customer_id = saved.id)
      on conflict (customer_id) do update set
        last_call_at = excluded.last_call_at, last_call_intents = excluded.last_call_intents
    `.execute(db);
  }
  if (issues.length > 0) {
    await sql`
      with saved as (
        select * from unnest(
          ${issues.map((i) => i.rowId)}::tid[],
          ${issues.map((i) => i.key.customerId)}::uuid[], ${issues.map((i) => i.intent)}::text[],
          ${issues.map((i) => i.key.accountId)}::text[], ${issues.map((i) => i.key.mode)}::text[],
          ${issues.map((i) => i.issue.openedAt)}::timestamptz[], ${issues.map((i) => i.issue.attempts)}::int[],
          ${issues.map((i) => i.issue.resolvedAt ?? null)}::timestamptz[], ${issues.map((i) => i.issue.firstContact)}::boolean[]
        ) as u (row_id, customer_id, intent, account_id, mode, opened_at, attempts, resolved_at, first_contact)
      ),
      updated as (
        update contact_figures_issues f
        set opened_at = saved.opened_at, attempts = saved.attempts, resolved_at = saved.resolved_at,
          first_contact = saved.first_contact
        from saved
        where f.ctid = saved.row_id
        returning f.customer_id, f.intent
      )
      insert into contact_figures_issues
        (customer_id, intent, account_id, mode, opened_at, attempts, resolved_at, first_contact)
      select saved.customer_id, saved.intent, saved.account_id, saved.mode, saved.opened_at, saved.attempts,
        saved.resolved_at, saved.first_contact
      from saved
      where not exists (
        select 1 from updated where updated.customer_id = saved.customer_id and updated.intent = saved.intent)
      on conflict (customer_id, intent) do update set
        opened_at = excluded.opened_at, attempts = excluded.attempts, resolved_at = excluded.resolved_at,
        first_contact = excluded.first_contact
    `.execute(db);
  }
}
