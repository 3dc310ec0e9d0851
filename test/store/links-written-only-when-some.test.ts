import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/store/database.ts";
import { type KeyedCallClient, TRANSPORTS, uniqueCallId } from "../helpers/call-client.ts";
import { type CountedCalls, startCountedCalls } from "../helpers/counted-server.ts";

// A call with nothing to link (an end that names no hint, a known caller's start whose identifiers and dialled
// number it already holds from today) sends no insert into customer_identifiers or customer_dnis: PostgreSQL sets
// up an insert's table and every index of it on each execution, rows or not (src/store/calls/caller-identifiers.ts).
// Counted by statement-level triggers, which fire for every insert statement, whatever rows it writes.

const CALLER = { ani: "+14155571234", dnis: "+18005550100" };

describe.each(TRANSPORTS)("the links a call writes over %s", (via) => {
  let counted: CountedCalls;
  let db: Db;
  let calls: KeyedCallClient;

  beforeAll(async () => {
    counted = await startCountedCalls(via);
    ({ db, calls } = counted);
    await sql`create table link_inserts (tbl text not null)`.execute(db);
    await sql`
      create function count_link_insert() returns trigger language plpgsql as $$
      begin
        insert into link_inserts values (tg_table_name);
        return null;
      end $$`.execute(db);
    for (const table of ["customer_identifiers", "customer_dnis"]) {
      await sql`create trigger ${sql.id(`count_${table}_inserts`)} after insert on ${sql.table(table)}
        for each statement execute function count_link_insert()`.execute(db);
    }
  }, 120_000);
  afterAll(() => counted?.close());

  /** A start with `hints` and its end, with `end`'s fields besides the call's id and customer. */
  async function startAndEnd(hints: object, end: object = {}): Promise<void> {
    const callId = uniqueCallId();
    const started = await calls.start({ call_id: callId, identity_hints: hints });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const ended = await calls.end({ call_id: callId, customer_ref: started.body.customer_ref, ...end });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
  }

  /** The insert statements into each link table while `work` ran. */
  async function insertsDuring(work: () => Promise<unknown>): Promise<Record<string, number>> {
    await sql`delete from link_inserts`.execute(db);
    await work();
    const { rows } = await sql<{ tbl: string; n: number }>`
      select tbl, count(*)::int as n from link_inserts group by tbl`.execute(db);
    return Object.fromEntries(rows.map((row) => [row.tbl, row.n]));
  }

  test("a new caller's start inserts its identifier and dialled number", async () => {
    const inserts = await insertsDuring(() => startAndEnd(CALLER));
    expect(inserts).toEqual({ customer_identifiers: 1, customer_dnis: 1 });
  });

  test("a known caller's start and an end naming no hint insert nothing", async () => {
    await startAndEnd(CALLER);
    const inserts = await insertsDuring(() => startAndEnd(CALLER, { summary: "a question" }));
    expect(inserts).toEqual({});
  });

  test("an end naming an identifier the caller lacks inserts it, and only it", async () => {
    const inserts = await insertsDuring(() =>
      startAndEnd(CALLER, { identity_hints: { external_ids: { crm: "C-1" } } }),
    );
    expect(inserts).toEqual({ customer_identifiers: 1 });
  });
});
