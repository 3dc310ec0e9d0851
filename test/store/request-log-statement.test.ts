import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { insertAccount } from "../../src/store/account-repository.ts";
import { insertApiKey } from "../../src/store/api-key-repository.ts";
import type { Database } from "../../src/store/database.ts";
import { insertRequestLog, type RequestLogEntry } from "../../src/store/request-log-repository.ts";
import { indexScans, scansBetween } from "../helpers/database-measures.ts";
import { type MigratedTestDatabase, openMigratedTestDatabase } from "../helpers/test-database.ts";

// Every statement with parameters is prepared once per connection under its
// text, so the request log's batch insert must have one text whatever the
// batch's size: a text per size would leave a prepared statement of 7n
// parameters on each connection for every size n ever written.

const OPEN_TIMEOUT_MS = 180_000;
let opened: MigratedTestDatabase;
let database: Database;
const texts: string[] = [];

beforeAll(async () => {
  opened = await openMigratedTestDatabase({}, { onQuery: (event) => texts.push(event.query.sql) });
  database = opened.database;
}, OPEN_TIMEOUT_MS);
afterAll(() => opened?.close());

const entry = (n: number): RequestLogEntry => ({
  keyId: `key_${n}`,
  at: new Date(Date.UTC(2026, 10, 25, 10, 0, n)),
  protocol: "rest",
  route: "/v1/calls/start",
  status: 200,
  latencyMs: n + 0.5,
  requestId: `req-${n}`,
});

describe("the request log's batch insert", () => {
  test("has one statement text for batches of any size", async () => {
    const inserts = () => texts.filter((text) => text.includes("insert into request_log"));
    for (const size of [1, 2, 7, 500]) {
      await insertRequestLog(
        database.db,
        Array.from({ length: size }, (_, n) => entry(n)),
      );
    }
    expect(inserts()).toHaveLength(4);
    expect(new Set(inserts()).size).toBe(1);
  });
});

describe("the request log's rows", () => {
  // Their account is their key's, read by the insert's join: no check of accounts per row (migration 0028), whose
  // row every call's charge reads.
  test("take their account from their key without reading accounts again", async () => {
    const db = database.db;
    const accountId = `acct_log_${Math.random().toString(36).slice(2, 10)}`;
    const created_at = new Date();
    await insertAccount(
      db,
      { id: accountId, name: accountId, billing_account_id: `ba_${accountId}`, tier: "growth", created_at },
      10,
    );
    const keyId = `key_log_${accountId}`;
    await insertApiKey(db, {
      id: keyId,
      account_id: accountId,
      kind: "test",
      secret_hash: `hash_${keyId}`,
      prefix: "cc_test_x",
      created_at,
    });
    const before = await indexScans(db, ["accounts"]);
    await insertRequestLog(
      db,
      Array.from({ length: 5 }, (_, n) => ({ ...entry(n), keyId })),
    );
    const scans = scansBetween(before, await indexScans(db, ["accounts"]));
    expect(scans.get("accounts_pkey"), JSON.stringify(Object.fromEntries(scans))).toBe(0);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from request_log where account_id = ${accountId} and key_id = ${keyId}`.execute(db);
    expect(rows[0]?.n).toBe(5);
  });
});
