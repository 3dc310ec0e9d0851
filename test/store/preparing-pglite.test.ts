import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { PreparingPglite } from "../../src/database/preparing-pglite.ts";
import { statementFailure } from "../helpers/statement-failure.ts";

// Statements with parameters are prepared once on the embedded database and
// then run by name: the rows, errors and transactions must be those of
// PGlite's own query(), and a statement that fails must not stay broken.

const OPEN_TIMEOUT_MS = 180_000;

describe("statements prepared once on the embedded database", () => {
  let pglite: PGlite;
  let statements: PreparingPglite;
  /** What PostgreSQL itself holds prepared in the session, by statement text. */
  const preparedTexts = async () =>
    (await pglite.query<{ statement: string }>("select statement from pg_prepared_statements order by name")).rows.map(
      (row) => row.statement,
    );

  beforeAll(async () => {
    pglite = await PGlite.create();
  }, OPEN_TIMEOUT_MS);
  afterAll(() => pglite?.close());
  beforeEach(async () => {
    statements = new PreparingPglite(pglite, { capacity: 3 });
    await pglite.query("deallocate all");
    await pglite.exec("drop table if exists notes; create table notes (id int primary key, body text not null)");
  });

  test("a statement run three times is prepared once, under one name, and answers like PGlite's query", async () => {
    const insert = "insert into notes values ($1, $2) returning id, body";
    for (const id of [1, 2, 3]) {
      expect(await statements.query(insert, [id, `note ${id}`])).toEqual({
        rows: [{ id, body: `note ${id}` }],
        affectedRows: 1,
      });
    }
    expect(await preparedTexts()).toEqual([insert]);
    const select = "select id, body from notes where id >= $1 order by id";
    expect(await statements.query(select, [2])).toEqual(
      await pglite.query(select, [2]).then(({ rows }) => ({ rows, affectedRows: 0 })),
    );
  });

  test("a statement without parameters runs without being prepared", async () => {
    expect((await statements.query("select count(*)::int as n from notes")).rows).toEqual([{ n: 0 }]);
    expect(await preparedTexts()).toEqual([]);
  });

  test("a statement that fails to prepare leaves nothing behind and runs once its table exists", async () => {
    const select = "select id from missing where id = $1";
    expect((await statementFailure(statements.query(select, [1]))).code).toBe("42P01");
    expect(statements.preparedCount).toBe(0);
    await pglite.query("create table missing (id int)");
    try {
      expect((await statements.query(select, [1])).rows).toEqual([]);
    } finally {
      await pglite.query("drop table missing");
    }
  });

  test("a prepared statement whose table changed shape fails once and is prepared afresh", async () => {
    const select = "select * from notes where id = $1";
    await statements.query("insert into notes values ($1, $2)", [1, "first"]);
    expect((await statements.query(select, [1])).rows).toEqual([{ id: 1, body: "first" }]);
    await pglite.query("alter table notes add column extra int");
    expect((await statementFailure(statements.query(select, [1]))).code).toBe("0A000");
    expect((await statements.query(select, [1])).rows).toEqual([{ id: 1, body: "first", extra: null }]);
  });

  test("a prepared statement refused by the data keeps SQLSTATE, fields and message, and stays prepared", async () => {
    const insert = "insert into notes values ($1, $2)";
    await statements.query(insert, [1, "first"]);
    const error = await statementFailure(statements.query(insert, [1, "again"]));
    expect(error).toMatchObject({
      code: "23505",
      constraint: "notes_pkey",
      detail: "Key (id)=(1) already exists.",
      table: "notes",
      severity: "ERROR",
      query: insert,
    });
    expect(error.message).toBe('duplicate key value violates unique constraint "notes_pkey"');
    expect((await statements.query(insert, [2, "second"])).affectedRows).toBe(1);
    expect(await preparedTexts()).toEqual([insert]);
  });

  test("transactions: a rollback undoes prepared writes, an aborted transaction refuses until rolled back", async () => {
    const insert = "insert into notes values ($1, $2)";
    const count = "select count(*)::int as n from notes where id > $1";
    await statements.query("begin");
    await statements.query(insert, [1, "rolled back"]);
    await statements.query("rollback");
    expect((await statements.query(count, [0])).rows).toEqual([{ n: 0 }]);

    await statements.query("begin");
    expect((await statementFailure(statements.query("select 1 / $1::int", [0]))).code).toBe("22012");
    expect((await statementFailure(statements.query(insert, [2, "refused"]))).code).toBe("25P02");
    expect((await statementFailure(statements.query("select $1::int + 1", [1]))).code).toBe("25P02");
    await statements.query("rollback");

    await statements.query("begin");
    await statements.query(insert, [3, "committed"]);
    await statements.query("commit");
    expect((await statements.query(count, [0])).rows).toEqual([{ n: 1 }]);
  });

  test("past its capacity the least recently used statement is closed", async () => {
    const texts = [1, 2, 3, 4].map((n) => `select $1::int + ${n} as sum`);
    for (const text of texts.slice(0, 3)) await statements.query(text, [1]);
    await statements.query(texts[0] as string, [1]);
    await statements.query(texts[3] as string, [1]);
    expect(statements.preparedCount).toBe(3);
    expect((await preparedTexts()).sort()).toEqual([texts[0], texts[2], texts[3]].sort());
    expect((await statements.query(texts[1] as string, [1])).rows).toEqual([{ sum: 3 }]);
  });
});
