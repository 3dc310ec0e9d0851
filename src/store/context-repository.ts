import type { IntentUpdateInput, OpenIntent, StoredVariable } from "../domain/call.ts";
import type { Db } from "./database.ts";

// What a customer's earlier calls left behind: intents and variables.

export async function listOpenIntents(db: Db, customerId: string): Promise<OpenIntent[]> {
  const rows = await db
    .selectFrom("intents")
    .select(["name", "attempt_count"])
    .where("customer_id", "=", customerId)
    .where("status", "=", "open")
    .orderBy("updated_at", "desc")
    .orderBy("name")
    .execute();
  return rows.map((row) => ({ intent: row.name, attemptCount: row.attempt_count }));
}

export async function listLiveVariables(
  db: Db,
  customerId: string,
  now: Date,
): Promise<Record<string, StoredVariable>> {
  const rows = await db
    .selectFrom("variables")
    .select(["name", "value", "source", "ttl_seconds"])
    .where("customer_id", "=", customerId)
    .where("expires_at", ">", now)
    .orderBy("name")
    .execute();
  const variables: Record<string, StoredVariable> = Object.create(null);
  for (const row of rows) {
    variables[row.name] = { value: row.value, source: row.source, ttlSeconds: row.ttl_seconds };
  }
  return variables;
}

/**
 * Saves one intent. Saving it open counts one more attempt since it was last
 * resolved; saving it resolved closes it and keeps the resolution.
 */
export async function saveIntent(db: Db, customerId: string, update: IntentUpdateInput, now: Date): Promise<void> {
  const status = update.status ?? "open";
  const resolution = {
    resolution_type: update.resolution?.type ?? null,
    resolution_external_reference: update.resolution?.externalReference ?? null,
  };
  await db
    .insertInto("intents")
    .values({
      customer_id: customerId,
      name: update.intent,
      status,
      attempt_count: status === "open" ? 1 : 0,
      ...(status === "resolved" ? resolution : { resolution_type: null, resolution_external_reference: null }),
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(["customer_id", "name"]).doUpdateSet((eb) =>
        status === "open"
          ? {
              status: "open" as const,
              attempt_count: eb
                .case()
                .when("intents.status", "=", "open")
                .then(eb("intents.attempt_count", "+", 1))
                .else(1)
                .end(),
              updated_at: now,
            }
          : { status: "resolved" as const, attempt_count: 0, ...resolution, updated_at: now },
      ),
    )
    .execute();
}

export interface VariableToSave {
  readonly value: string;
  readonly source: string | null;
  readonly ttlSeconds: number;
}

/** Last write wins per name. */
export async function saveVariables(
  db: Db,
  customerId: string,
  variables: ReadonlyMap<string, VariableToSave>,
  now: Date,
): Promise<void> {
  if (variables.size === 0) return;
  await db
    .insertInto("variables")
    .values(
      [...variables].map(([name, v]) => ({
        customer_id: customerId,
        name,
        value: v.value,
        source: v.source,
        ttl_seconds: v.ttlSeconds,
        updated_at: now,
        expires_at: new Date(now.getTime() + v.ttlSeconds * 1000),
      })),
    )
    .onConflict((oc) =>
      oc.columns(["customer_id", "name"]).doUpdateSet((eb) => ({
        value: eb.ref("excluded.value"),
        source: eb.ref("excluded.source"),
        ttl_seconds: eb.ref("excluded.ttl_seconds"),
        updated_at: eb.ref("excluded.updated_at"),
        expires_at: eb.ref("excluded.expires_at"),
      })),
    )
    .execute();
}
