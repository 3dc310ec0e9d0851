import { sql } from "kysely";
import type { Tenant } from "../domain/tenant.ts";
import type { Db } from "./database.ts";

// Customers of one tenant and the identifiers that point at them.

export interface Identifier {
  readonly kind: "ani" | "external_id";
  /** The external id's key; empty for ani. */
  readonly namespace: string;
  readonly value: string;
}

export interface IdentifierHit {
  readonly customerId: string;
  readonly kind: Identifier["kind"];
}

export async function findIdentifierHits(
  db: Db,
  tenant: Tenant,
  identifiers: readonly Identifier[],
): Promise<IdentifierHit[]> {
  if (identifiers.length === 0) return [];
  const rows = await db
    .selectFrom("customer_identifiers")
    .select(["customer_id", "kind"])
    .where("account_id", "=", tenant.accountId)
    .where("mode", "=", tenant.mode)
    .where((eb) =>
      eb.or(
        identifiers.map((id) =>
          eb.and([eb("kind", "=", id.kind), eb("namespace", "=", id.namespace), eb("value", "=", id.value)]),
        ),
      ),
    )
    .execute();
  return rows.map((row) => ({ customerId: row.customer_id, kind: row.kind as Identifier["kind"] }));
}

export interface CustomerFacts {
  readonly id: string;
  readonly lastCallAt: Date;
  readonly hasOpenIntent: boolean;
  readonly calledDnis: boolean;
}

/** The facts the score needs, for customers of the tenant still within retention. */
export async function loadCustomerFacts(
  db: Db,
  tenant: Tenant,
  ids: readonly string[],
  dnis: string | undefined,
  matchableSince: Date,
): Promise<CustomerFacts[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom("customers as c")
    .select((eb) => [
      "c.id",
      "c.last_call_at",
      eb
        .exists(eb.selectFrom("intents as i").whereRef("i.customer_id", "=", "c.id").where("i.status", "=", "open"))
        .as("has_open_intent"),
      dnis === undefined
        ? sql<boolean>`false`.as("called_dnis")
        : eb
            .exists(
              eb.selectFrom("customer_dnis as d").whereRef("d.customer_id", "=", "c.id").where("d.dnis", "=", dnis),
            )
            .as("called_dnis"),
    ])
    .where("c.id", "in", ids)
    .where("c.account_id", "=", tenant.accountId)
    .where("c.mode", "=", tenant.mode)
    .where("c.last_call_at", ">=", matchableSince)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    lastCallAt: row.last_call_at,
    hasOpenIntent: Boolean(row.has_open_intent),
    calledDnis: Boolean(row.called_dnis),
  }));
}

export async function customerExists(db: Db, tenant: Tenant, id: string): Promise<boolean> {
  const row = await db
    .selectFrom("customers")
    .select("id")
    .where("id", "=", id)
    .where("account_id", "=", tenant.accountId)
    .where("mode", "=", tenant.mode)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertCustomer(db: Db, tenant: Tenant, id: string, now: Date): Promise<void> {
  await db
    .insertInto("customers")
    .values({ id, account_id: tenant.accountId, mode: tenant.mode, created_at: now, last_call_at: now })
    .execute();
}

export async function touchCustomer(db: Db, id: string, now: Date): Promise<void> {
  await db.updateTable("customers").set({ last_call_at: now }).where("id", "=", id).execute();
}

/**
 * Points each identifier at the customer. An identifier seen with another
 * customer before moves to this one: the latest call is the best evidence.
 */
export async function linkIdentifiers(
  db: Db,
  tenant: Tenant,
  customerId: string,
  identifiers: readonly Identifier[],
  now: Date,
): Promise<void> {
  if (identifiers.length === 0) return;
  // A fixed order keeps concurrent upserts of the same rows from deadlocking.
  const sorted = [...identifiers].sort((a, b) => compareIdentifiers(a, b));
  await db
    .insertInto("customer_identifiers")
    .values(
      sorted.map((id) => ({
        account_id: tenant.accountId,
        mode: tenant.mode,
        kind: id.kind,
        namespace: id.namespace,
        value: id.value,
        customer_id: customerId,
        last_seen_at: now,
      })),
    )
    .onConflict((oc) =>
      oc.columns(["account_id", "mode", "kind", "namespace", "value"]).doUpdateSet((eb) => ({
        customer_id: eb.ref("excluded.customer_id"),
        last_seen_at: eb.ref("excluded.last_seen_at"),
      })),
    )
    .execute();
}

export async function linkDnis(db: Db, customerId: string, dnis: string, now: Date): Promise<void> {
  await db
    .insertInto("customer_dnis")
    .values({ customer_id: customerId, dnis, last_seen_at: now })
    .onConflict((oc) => oc.columns(["customer_id", "dnis"]).doUpdateSet({ last_seen_at: now }))
    .execute();
}

function compareIdentifiers(a: Identifier, b: Identifier): number {
  const left = `${a.kind}\u0000${a.namespace}\u0000${a.value}`;
  const right = `${b.kind}\u0000${b.namespace}\u0000${b.value}`;
  return left < right ? -1 : left > right ? 1 : 0;
}
