import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { envToConfig } from "../../src/config.ts";
import { DataDirLockedError, lockDataDir } from "../../src/database/data-dir-lock.ts";
import { tightenDataDir } from "../../src/database/data-dir-mode.ts";
import { isDatabaseUnavailable } from "../../src/database/database-errors.ts";
import { migrateToLatest } from "../../src/database/migrate.ts";
import { createPgliteDialect } from "../../src/database/pglite-dialect.ts";
import { PgliteThread } from "../../src/database/pglite-thread.ts";
import { deadlineColumn, isRefusal, refuse } from "../../src/store/calls/call-statement.ts";
import { createDatabase, type Database } from "../../src/store/database.ts";
import { statementFailure } from "../helpers/statement-failure.ts";

// The embedded database on a thread of its own (EMBEDDED_DB_THREAD=worker, the
// default) must look to the store exactly as PGlite on the main thread does:
// same errors, same rows, same transactions; and a thread that dies fails
// what it was asked instead of leaving it waiting.

const OPEN_TIMEOUT_MS = 180_000;

function embedded(dataDir: string, thread: "worker" | "main"): Promise<Database> {
  return createDatabase(envToConfig({ DATA_DIR: dataDir, EMBEDDED_DB_THREAD: thread, LOG_LEVEL: "silent" }));
}

describe("a database on the worker thread", () => {
  let database: Database;
  beforeAll(async () => {
    database = await embedded(":memory:", "worker");
    await migrateToLatest(database.db);
    await sql`create table thread_probe (id int primary key, note text not null)`.execute(database.db);
  }, OPEN_TIMEOUT_MS);
  afterAll(() => database?.close());

  test("a unique violation keeps its SQLSTATE, constraint, detail and message", async () => {
    await sql`insert into thread_probe values (1, 'first')`.execute(database.db);
    const error = await statementFailure(sql`insert into thread_probe values (1, 'again')`.execute(database.db));
    expect(error).toMatchObject({
      code: "23505",
      constraint: "thread_probe_pkey",
      detail: "Key (id)=(1) already exists.",
      table: "thread_probe",
      severity: "ERROR",
    });
    expect(error.message).toBe('duplicate key value violates unique constraint "thread_probe_pkey"');
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  test("a statement with parameters (prepared in the thread) keeps its error's fields on every run", async () => {
    const insert = (id: number, note: string) => sql`insert into thread_probe values (${id}, ${note})`;
    await insert(10, "first").execute(database.db);
    for (const note of ["again", "and again"]) {
      const error = await statementFailure(insert(10, note).execute(database.db));
      expect(error).toMatchObject({
        code: "23505",
        constraint: "thread_probe_pkey",
        detail: "Key (id)=(10) already exists.",
        table: "thread_probe",
      });
      expect(error.message).toBe('duplicate key value violates unique constraint "thread_probe_pkey"');
    }
    await sql`delete from thread_probe where id = ${10}`.execute(database.db);
  });

  test("a statement with parameters that failed runs once what it reads exists", async () => {
    const select = () => sql<{ id: number }>`select id from thread_later where id = ${1}`.execute(database.db);
    expect((await statementFailure(select())).code).toBe("42P01");
    await sql`create table thread_later (id int)`.execute(database.db);
    await sql`insert into thread_later values (${1})`.execute(database.db);
    expect((await select()).rows).toEqual([{ id: 1 }]);
  });

  test("a refusal raised by a statement is recognised by its own SQLSTATE", async () => {
    const error = await statementFailure(sql`select ${refuse("CC409", "taken")} as refused`.execute(database.db));
    expect(isRefusal(error, "CC409")).toBe(true);
    expect(isRefusal(error, "CC402")).toBe(false);
  });

  test("a serialization failure keeps SQLSTATE 40001", async () => {
    const raise = sql`do $$ begin raise exception 'could not serialize' using errcode = '40001'; end $$`;
    const error = await statementFailure(raise.execute(database.db));
    expect(error.code).toBe("40001");
  });

  test("a transaction that throws is rolled back in the thread, and the connection serves the next one", async () => {
    const outcome = database.db.transaction().execute(async (trx) => {
      await sql`insert into thread_probe values (2, 'rolled back')`.execute(trx);
      await sql`insert into thread_probe values (1, 'duplicate')`.execute(trx);
    });
    expect((await statementFailure(outcome)).code).toBe("23505");
    await database.db.transaction().execute(async (trx) => {
      await sql`insert into thread_probe values (3, 'committed')`.execute(trx);
    });
    const { rows } = await sql<{ id: number }>`select id from thread_probe order by id`.execute(database.db);
    expect(rows.map((row) => row.id)).toEqual([1, 3]);
  });

  test("a transaction of statements with parameters is rolled back, and the same statements serve the next one", async () => {
    const insert = (id: number, note: string) => sql`insert into thread_probe values (${id}, ${note})`;
    const outcome = database.db.transaction().execute(async (trx) => {
      await insert(20, "rolled back").execute(trx);
      await insert(1, "duplicate").execute(trx);
    });
    expect((await statementFailure(outcome)).code).toBe("23505");
    await database.db.transaction().execute(async (trx) => {
      await insert(21, "committed").execute(trx);
    });
    const { rows } = await sql<{ id: number }>`select id from thread_probe where id >= ${20} order by id`.execute(
      database.db,
    );
    expect(rows.map((row) => row.id)).toEqual([21]);
  });

  test("a statement past its deadline undoes itself with the deadline's SQLSTATE", async () => {
    const late = sql`select ${deadlineColumn(Date.now() - 1000)} as checked`.execute(database.db);
    expect(isRefusal(await statementFailure(late), "CC408")).toBe(true);
    const { rows } = await sql`select ${deadlineColumn(Date.now() + 60_000)} as checked`.execute(database.db);
    expect(rows).toEqual([{ checked: null }]);
  });
});

describe("rows read through the worker thread", () => {
  const probe = `select 9007199254740993::int8 as big, 42::int4 as small, 1.5::numeric as exact, 2.5::float8 as real,
    '2026-11-23T10:00:00.123Z'::timestamptz as at, '2026-11-23'::date as day, '{"a":[1,"x",null]}'::jsonb as doc,
    '\\x00ff'::bytea as bytes, array[1,2]::int[] as list, true as flag, null::text as nothing,
    '6f1c2b1e-5d3a-4c8b-9a7e-1f2d3c4b5a69'::uuid as id, $1::timestamptz as param_at, $2::jsonb as param_doc,
    $3::bytea as param_bytes, $4::int8 as param_big`;
  const params = [new Date("2026-01-02T03:04:05.678Z"), { b: [true] }, new Uint8Array([7, 8]), 12345678901234n];
  let main: PGlite;
  let thread: PgliteThread;
  beforeAll(async () => {
    [main, thread] = await Promise.all([PGlite.create(), PgliteThread.open(":memory:")]);
  }, OPEN_TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all([main?.close(), thread?.close()]);
  });

  test("are the rows PGlite gives on the main thread: Date, bigint, json, bytea, arrays", async () => {
    const [onMain, onThread] = await Promise.all([main.query(probe, params), thread.query(probe, params)]);
    expect(onThread.rows).toEqual(onMain.rows);
    const row = onThread.rows[0] as Record<string, unknown>;
    expect(row.big).toBe(9007199254740993n);
    expect(row.at).toBeInstanceOf(Date);
    expect(row.param_at).toEqual(params[0]);
    expect(row.bytes).toBeInstanceOf(Uint8Array);
    expect(row.doc).toEqual({ a: [1, "x", null] });
  });

  test("affected row counts are PGlite's", async () => {
    const create = "create table counted (id int)";
    await Promise.all([main.query(create), thread.query(create)]);
    const insert = "insert into counted select generate_series(1, 3)";
    const [onMain, onThread] = await Promise.all([main.query(insert), thread.query(insert)]);
    expect(onThread.affectedRows).toBe(3);
    expect(onThread.affectedRows).toBe(onMain.affectedRows);
  });
});

describe("a worker thread that dies", () => {
  let thread: PgliteThread;
  beforeAll(async () => {
    thread = await PgliteThread.open(":memory:");
  }, OPEN_TIMEOUT_MS);
  afterAll(() => thread?.close());

  test("fails the statements it was sent and every later one with an error read as 'database unavailable'", async () => {
    const db = new Kysely<Record<string, never>>({ dialect: createPgliteDialect(thread) });
    let begun!: () => void;
    const inTransaction = new Promise<void>((resolve) => {
      begun = resolve;
    });
    const transaction = db.transaction().execute(async (trx) => {
      begun();
      await sql`select pg_sleep(30)`.execute(trx);
    });
    const queued = sql`select 1`.execute(db);
    await inTransaction;
    const sent = thread.query("select pg_sleep(30)");
    await thread.worker.terminate();

    for (const error of await Promise.all([
      statementFailure(transaction),
      statementFailure(queued),
      statementFailure(sent),
    ])) {
      expect(error.message).toMatch(/^embedded database thread stopped: /);
      expect(isDatabaseUnavailable(error)).toBe(true);
    }
    const later = await statementFailure(sql`select 1`.execute(db));
    expect(isDatabaseUnavailable(later)).toBe(true);
    await db.destroy();
  });
});

describe("closing a worker-thread database on a data directory", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cc-thread-"));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  test(
    "answers every statement sent before close, and what they wrote is there on reopening",
    async () => {
      const thread = await PgliteThread.open(dataDir);
      await thread.query("create table kept (id int primary key)");
      const writes = Array.from({ length: 50 }, (_, id) => thread.query("insert into kept values ($1)", [id]));
      const closed = thread.close();
      const after = await statementFailure(thread.query("select 1"));
      expect(isDatabaseUnavailable(after)).toBe(true);
      expect((await Promise.all(writes)).map((result) => result.affectedRows)).toEqual(writes.map(() => 1));
      await closed;

      const reopened = await PGlite.create(dataDir);
      try {
        expect((await reopened.query("select count(*)::int as n from kept")).rows).toEqual([{ n: 50 }]);
      } finally {
        await reopened.close();
      }
    },
    OPEN_TIMEOUT_MS,
  );

  test(
    "the service's process holds the directory's lock from open to close",
    async () => {
      // The previous test opened the directory with PGlite itself, which leaves its files 0666; the service
      // would refuse them (test/security/data-dir-modes.test.ts), so they are tightened as the service does.
      await tightenDataDir(dataDir);
      const database = await embedded(dataDir, "worker");
      await expect(lockDataDir(dataDir)).rejects.toBeInstanceOf(DataDirLockedError);
      await database.close();
      const lock = await lockDataDir(dataDir);
      await lock.release();
    },
    OPEN_TIMEOUT_MS,
  );
});
