import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { PreparingClient } from "../../src/database/preparing-client.ts";

// The pg client the service runs PostgreSQL statements on: a statement with
// parameters is prepared once under a fixed name, and a query asked for as a
// promise (Kysely's way) runs in node-postgres's callback form under a promise
// of the client's own, with pg's rows and pg's errors. pg's own promise form
// kept each query's objects alive into the old generation
// (docs/performance-log.md, "What kept them").

const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Whether pg's own query was given a callback: the last function among its arguments, or the config's. */
function hadCallback(args: unknown[]): boolean {
  const [config, values, callback] = args;
  return (
    typeof callback === "function" ||
    typeof values === "function" ||
    typeof (config as { callback?: unknown } | undefined)?.callback === "function"
  );
}

describe("the PostgreSQL client", () => {
  let client: PreparingClient;

  beforeAll(async () => {
    client = new PreparingClient({ connectionString: url });
    await client.connect();
    await client.query("create temp table notes (id int primary key, body text not null)");
  });
  afterAll(() => client?.end());
  afterEach(() => vi.restoreAllMocks());

  test("answers a promise with pg's rows, the statement prepared once by name", async () => {
    const result = await client.query("insert into notes values ($1, $2) returning id, body", [1, "first"]);
    expect(result.rows).toEqual([{ id: 1, body: "first" }]);
    await client.query("insert into notes values ($1, $2) returning id, body", [2, "second"]);
    const prepared: pg.QueryResult<{ n: number }> = await client.query(
      "select count(*)::int as n from pg_prepared_statements where statement = $1",
      ["insert into notes values ($1, $2) returning id, body"],
    );
    expect(prepared.rows[0]?.n).toBe(1);
  });

  test("rejects a promise with pg's error, and goes on answering", async () => {
    await client.query("insert into notes values ($1, $2)", [10, "taken"]);
    const failure = await client
      .query("insert into notes values ($1, $2)", [10, "again"])
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(pg.DatabaseError);
    expect((failure as pg.DatabaseError).code).toBe("23505");
    expect((await client.query("select body from notes where id = $1", [10])).rows).toEqual([{ body: "taken" }]);
  });

  test("runs a query asked for as a promise in pg's callback form", async () => {
    const pgQuery = vi.spyOn(pg.Client.prototype, "query");
    await client.query("select $1::int as one", [1]);
    await client.query("select 2 as two");
    expect(pgQuery.mock.calls.length).toBe(2);
    expect(pgQuery.mock.calls.map((args) => hadCallback(args))).toEqual([true, true]);
  });

  test("still answers a caller's own callback", async () => {
    const rows = await new Promise<unknown[]>((resolve, reject) => {
      client.query("select $1::text as said", ["hello"], (error: Error | null, result: pg.QueryResult) =>
        error ? reject(error) : resolve(result.rows),
      );
    });
    expect(rows).toEqual([{ said: "hello" }]);
  });
});
