import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "../../src/store/database.ts";
import { insertRequestLog, type RequestLogEntry } from "../../src/store/request-log-repository.ts";
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
