import { sql } from "kysely";
import type { Db } from "./database.ts";

// The Requests page's rows: written in batches, read newest first per
// account, deleted by age in bounded batches.

export interface RequestLogEntry {
  readonly keyId: string;
  readonly at: Date;
  readonly protocol: string;
  readonly route: string;
  readonly status: number;
  readonly latencyMs: number;
  readonly requestId: string;
}

export interface LoggedRequest extends RequestLogEntry {
  readonly keyPrefix: string;
  readonly keyName: string;
  readonly keyKind: string;
}

/**
 * Writes the entries in one statement. The account is taken from the key
 * here, not on the request's path; an entry whose key is gone is dropped.
 * The rows go as one JSON parameter, the entries as they are: the statement's
 * text is the same whatever the batch's size, so it is prepared once per
 * connection (a VALUES list of n rows is a new statement for every n), and
 * the batch is serialised by JSON.stringify in one pass, where arrays per
 * column were each built up by node-postgres element by element.
 */
export async function insertRequestLog(db: Db, entries: readonly RequestLogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await sql`
    insert into request_log (account_id, key_id, at, protocol, route, status, latency_ms, request_id)
    select k.account_id, v."keyId", v.at, v.protocol, v.route, v.status, v."latencyMs", v."requestId"
    from json_to_recordset(${JSON.stringify(entries)}::json) as v
      ("keyId" text, at timestamptz, protocol text, route text, status integer, "latencyMs" real, "requestId" text)
    join api_keys k on k.id = v."keyId"
  `.execute(db);
}

/** The account's newest requests since `since`, at most `limit`, with the key's display prefix and name. */
export async function listRecentRequests(
  db: Db,
  accountId: string,
  since: Date,
  limit: number,
): Promise<LoggedRequest[]> {
  const rows = await db
    .selectFrom("request_log as r")
    .innerJoin("api_keys as k", "k.id", "r.key_id")
    .select(["r.key_id", "r.at", "r.protocol", "r.route", "r.status", "r.latency_ms", "r.request_id"])
    .select(["k.prefix", "k.name", "k.kind"])
    .where("r.account_id", "=", accountId)
    .where("r.at", ">=", since)
    .orderBy("r.at", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    keyId: r.key_id,
    at: r.at,
    protocol: r.protocol,
    route: r.route,
    status: r.status,
    latencyMs: r.latency_ms,
    requestId: r.request_id,
    keyPrefix: r.prefix,
    keyName: r.name,
    keyKind: r.kind,
  }));
}

/** Deletes at most `limit` rows older than `before`; returns how many. */
export async function deleteOldRequests(db: Db, before: Date, limit: number): Promise<number> {
  // Rows written since the last pass cost the BRIN index nothing until summarised.
  await sql`select brin_summarize_new_values('request_log_at'::regclass)`.execute(db);
  const result = await sql`
    delete from request_log where ctid in (select ctid from request_log where at < ${before} limit ${limit})
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
