import { describe, expect, test } from "vitest";
import { summarizeStatement } from "../../src/tracing/statement-summary.ts";

// Database spans are named "<operation> <table>" from the statement text.

describe("summarizeStatement", () => {
  test.each([
    ["select 1", { operation: "select" }],
    ['\n  select "id" from "api_keys" where "prefix" = $1', { operation: "select", table: "api_keys" }],
    ["insert into calls (id) values ($1)", { operation: "insert", table: "calls" }],
    ["update quota_slots set used = used + 1 where id = $1", { operation: "update", table: "quota_slots" }],
    [
      "delete from webhook_receipts where ctid in (select ctid from webhook_receipts limit 5)",
      { operation: "delete", table: "webhook_receipts" },
    ],
    [
      "\n    with found as (select id from customers where id = $1), upd as (update variables set v = 1)\n    insert into calls (id) select id from found",
      { operation: "insert", table: "calls" },
    ],
    ["with x as (select 1) select * from (select 2) as y", { operation: "select" }],
    // A start's one statement: CTEs that write, and a select of their results.
    [
      "with call as (insert into calls (id) values ($1) returning id), seen as (update customers set x = 1)\n select exists (select 1 from call) as started",
      { operation: "insert", table: "calls" },
    ],
    ["select count(*) from (select id from calls) as c", { operation: "select" }],
    ["begin", { operation: "begin" }],
  ])("%s", (sql, expected) => {
    expect(summarizeStatement(sql)).toEqual(expected);
  });
});
