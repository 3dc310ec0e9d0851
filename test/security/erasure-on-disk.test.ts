import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEventEndpoint } from "../helpers/event-endpoints.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// An erasure reaches the tables' files: the erased number, external id and
// variable are gone from every file of the tables (vacuum), and the cleaned
// pages are on disk (checkpoint). On the embedded database the files are read
// after shutdown; on PostgreSQL, the tables' files in its data directory.
// The WAL keeps them until its segments are reused (docs/security.md). The
// account has an event endpoint that receives variable values, so the
// erased values are in the outbox's rows too.

const embedded = !process.env.DATABASE_URL;
let root: string;
let server: TestServer;
let stopped = false;
let apiKey: string;
let receiver: EventReceiver;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cc-erasure-"));
  // FULL is the embedded default; on PostgreSQL it is asked for (plain VACUUM leaves bytes in free space).
  server = await startTestServer({ env: embedded ? { DATA_DIR: join(root, "data") } : { ERASURE_VACUUM: "full" } });
  const account = await createAccountWithKey(server.url);
  apiKey = account.apiKey;
  receiver = await startEventReceiver();
  const endpoint = await createEventEndpoint(server.url, account.accountId, {
    url: receiver.url,
    event_types: ["call.ended"],
    include_variable_values: true,
  });
  receiver.secret = endpoint.secret;
}, 120_000);
afterAll(async () => {
  if (!stopped) await server?.stop();
  await receiver?.close();
  await rm(root, { recursive: true, force: true });
});

/** Letters only: a run of digits in a random marker could pass for a card number and be refused. */
function marker(): string {
  return randomBytes(8)
    .toString("hex")
    .replace(/[0-9]/g, (digit) => "ghijklmnop"[Number(digit)] ?? "g");
}

/** A caller with a number, an external id and a variable, each unique to it; returns its ref and the three. */
async function caller(n: number) {
  const number = `+1415555${String(1000 + n).padStart(4, "0")}`;
  const crm = `crm-${marker()}`;
  const value = `var-${marker()}`;
  const callId = `erase-${marker()}`;
  const started = await post(server.url, "/v1/calls/start", apiKey, {
    call_id: callId,
    identity_hints: { ani: number, external_ids: { crm_id: crm } },
  });
  expect(started.status).toBe(200);
  const ended = await post(server.url, "/v1/calls/end", apiKey, {
    call_id: callId,
    customer_ref: started.body.customer_ref,
    variables: { note: value },
  });
  expect(ended.status).toBe(200);
  return { ref: started.body.customer_ref as string, texts: [number, crm, value] };
}

/** The files that hold the customer tables' rows (not the WAL). */
async function tableFiles(): Promise<string[]> {
  if (embedded) {
    const base = join(root, "data", "base");
    const entries = await readdir(base, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  }
  const db = server.context.database.db;
  const { rows } = await sql<{ dir: string; path: string }>`
    select current_setting('data_directory') as dir, pg_relation_filepath(c.oid) as path
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'i', 't') and pg_relation_filepath(c.oid) is not null
  `.execute(db);
  return rows.map((row) => join(row.dir, row.path));
}

async function filesHolding(files: string[], text: string): Promise<string[]> {
  const found: string[] = [];
  for (const file of files) {
    // Segments beyond the first (relation.1, …) and files a vacuum truncated away are read when there.
    const content = await readFile(file).catch(() => undefined);
    if (content?.includes(text)) found.push(file);
  }
  return found;
}

describe("erasure on disk", () => {
  test("a burst of erasures is vacuumed and checkpointed in at most two runs, and the erased data is in no table file", async () => {
    const callers = [];
    for (let n = 0; n < 12; n++) callers.push(await caller(n));
    const kept = callers.slice(8);
    const erased = callers.slice(0, 8);
    // Written to the tables' files before the erasure, so that what is tested is the erasure's effect.
    await sql`checkpoint`.execute(server.context.database.db);
    const files = await tableFiles();
    for (const { texts } of erased) for (const text of texts) expect(await filesHolding(files, text)).not.toEqual([]);

    await server.context.erasures.idle();
    const before = server.context.erasures.runs();
    const answers = await Promise.all(
      erased.map(({ ref }) => request(server.url, "DELETE", `/v1/customers/${ref}`, { token: apiKey })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(erased.map(() => 200));
    await server.context.erasures.idle();
    const runs = server.context.erasures.runs() - before;
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(runs).toBeLessThanOrEqual(2);

    // The finding: the variables table's file still held the erased value after shutdown.
    if (embedded) {
      await server.stop();
      stopped = true;
    }
    const after = await tableFiles();
    for (const { texts } of erased) for (const text of texts) expect(await filesHolding(after, text)).toEqual([]);
    // What was not erased is still there: the search reads the right files.
    for (const { texts } of kept) expect(await filesHolding(after, texts[2] ?? "")).not.toEqual([]);
  }, 240_000);
});
