import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { envToConfig } from "../../src/config.ts";
import { migrateToLatest } from "../../src/database/migrate.ts";
import { ensureAdminAccess, markFirstStartShown } from "../../src/first-start.ts";
import { createDatabase, type Database } from "../../src/store/database.ts";
import { request } from "../helpers/rest-client.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

// Instances started together on an empty PostgreSQL database without
// ADMIN_TOKEN: one creates the first start's secrets and shows them; another
// that finds them not yet shown waits for that, rather than taking them for
// lost and replacing the token the first is printing.

let database: TestDatabase | undefined;
let store: Database | undefined;
let other: ServerProcess | undefined;

beforeAll(async () => {
  if (!process.env.DATABASE_URL) {
    throw new Error(
      "Instances sharing one database need PostgreSQL; set DATABASE_URL, e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres",
    );
  }
  database = await createTestDatabase();
  const config = envToConfig({ ...database.env, LOG_LEVEL: "silent" });
  store = await createDatabase(config);
  await migrateToLatest(store.db);
});
afterAll(async () => {
  await other?.stop();
  await store?.close();
  await database?.drop();
});

describe("a start that finds the first start's secrets being shown by another", () => {
  test("waits for them to be shown, prints nothing, and the token shown by the other stays in force", async () => {
    const db = store!.db;
    // The creator: secrets stored, being printed (not yet marked shown).
    const creator = await ensureAdminAccess(db, envToConfig({ ...database!.env }), new Date());
    const token = creator.firstStart?.adminToken;
    expect(token).toMatch(/^adm_/);

    const starting = startServerProcess({ ...database!.env, REDIS_URL: "", ADMIN_TOKEN: "" }, { until: "listening" });
    const server = await starting;
    other = server;
    // Shown by the creator only once the other start is waiting for it.
    for (let i = 0; i < 600 && !waiting(server); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(waiting(server), server.output.join("\n")).toBe(true);
    await markFirstStartShown(db);

    for (let i = 0; i < 600 && !server.output.some((line) => line.includes('"msg":"caller context ready"')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(server.output.join("\n")).not.toContain("ADMIN_TOKEN=");
    const created = await request(server.url, "POST", "/admin/v1/accounts", { token, body: { name: "Together" } });
    expect(created.status).toBe(200);
  }, 120_000);
});

function waiting(server: ServerProcess): boolean {
  return server.output.some((line) => line.includes("the first start's secrets are not shown yet"));
}
