import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callerWithTexts, filesHolding, tableFiles } from "../helpers/erased-files.ts";
import { createEventEndpoint } from "../helpers/event-endpoints.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { createAccountWithKey, request } from "../helpers/rest-client.ts";
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

/** The embedded database's directory; undefined on PostgreSQL, whose files the server's database names. */
const dataDir = () => (embedded ? join(root, "data") : undefined);

describe("erasure on disk", () => {
  test("a burst of erasures is vacuumed and checkpointed in at most two runs, and the erased data is in no table file", async () => {
    const callers = [];
    for (let n = 0; n < 12; n++) callers.push(await callerWithTexts(server, apiKey, n));
    const kept = callers.slice(8);
    const erased = callers.slice(0, 8);
    // Written to the tables' files before the erasure, so that what is tested is the erasure's effect.
    await sql`checkpoint`.execute(server.context.database.db);
    const files = await tableFiles(server, dataDir());
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
    const after = await tableFiles(server, dataDir());
    for (const { texts } of erased) for (const text of texts) expect(await filesHolding(after, text)).toEqual([]);
    // What was not erased is still there: the search reads the right files.
    for (const { texts } of kept) expect(await filesHolding(after, texts[2] ?? "")).not.toEqual([]);
  }, 240_000);
});
