import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { envToConfig } from "../../src/config.ts";
import { migrateToLatest } from "../../src/database/migrate.ts";
import { ensureAdminAccess } from "../../src/first-start.ts";
import { createDatabase } from "../../src/store/database.ts";
import { post, request } from "../helpers/rest-client.ts";
import { startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase } from "../helpers/test-database.ts";

// A newcomer's first `npm start`: no ADMIN_TOKEN, an empty database.

let env: Record<string, string>;
const cleanUps: (() => Promise<void>)[] = [];

/** An empty database of its own: on PostgreSQL when DATABASE_URL is set, else an embedded directory. */
async function emptyDatabaseEnv(): Promise<Record<string, string>> {
  if (process.env.DATABASE_URL) {
    const database = await createTestDatabase();
    cleanUps.push(database.drop);
    return database.env;
  }
  const dir = await mkdtemp(join(tmpdir(), "cc-first-start-"));
  cleanUps.push(() => rm(dir, { recursive: true, force: true }));
  return { DATA_DIR: dir, DATABASE_URL: "" };
}

beforeAll(async () => {
  env = await emptyDatabaseEnv();
});
afterAll(async () => {
  for (const cleanUp of cleanUps) await cleanUp();
});

/** What a start printed as the first start's secrets, if anything. */
function printedSecrets(output: string[]) {
  const printed = output.join("\n");
  return {
    adminToken: /ADMIN_TOKEN=(\S+)/.exec(printed)?.[1],
    accountId: /account:\s+(acct_\S+)/.exec(printed)?.[1],
    apiKey: /API key:\s+(sk_test_\S+)/.exec(printed)?.[1],
  };
}

describe("the first start with an empty database and no ADMIN_TOKEN", () => {
  test("prints an admin token and a working sk_test_ key once, and keeps the token for later starts", async () => {
    const first = await startServerProcess({ ...env, ADMIN_TOKEN: "" });
    const printed = first.output.join("\n");
    const adminToken = /ADMIN_TOKEN=(\S+)/.exec(printed)?.[1];
    const apiKey = /API key:\s+(sk_test_\S+)/.exec(printed)?.[1];
    expect(adminToken).toBeDefined();
    expect(apiKey).toMatch(/^sk_test_[0-9A-Za-z]{32,}$/);
    const started = await post(first.url, "/v1/calls/start", apiKey, {
      call_id: "first-call",
      identity_hints: { ani: "+14155550123" },
    });
    expect(started.status).toBe(200);
    // The secrets are shown on standard output, never in a log line.
    const logLines = first.output.filter((line) => line.startsWith("{"));
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) {
      expect(line).not.toContain(adminToken);
      expect(line).not.toContain(apiKey);
    }
    await first.stop();

    const second = await startServerProcess({ ...env, ADMIN_TOKEN: "" });
    try {
      expect(second.output.join("\n")).not.toContain("ADMIN_TOKEN=");
      const account = await request(second.url, "POST", "/admin/v1/accounts", {
        token: adminToken,
        body: { name: "Second" },
      });
      expect(account.status).toBe(200);
    } finally {
      await second.stop();
    }
  }, 60_000);
});

describe("a first start whose secrets were stored but never shown", () => {
  test("the next start creates them again, shows them once, and the lost token no longer works", async () => {
    const lostEnv = await emptyDatabaseEnv();
    // What a start that died between storing the secrets and printing them leaves behind.
    const config = envToConfig({ ...lostEnv, LOG_LEVEL: "silent" });
    const database = await createDatabase(config);
    const lost = await migrateToLatest(database.db)
      .then(() => ensureAdminAccess(database.db, config, new Date()))
      .finally(() => database.close());
    expect(lost.firstStart?.defaultAccount).toBeDefined();

    const next = await startServerProcess({ ...lostEnv, ADMIN_TOKEN: "" });
    let shown: ReturnType<typeof printedSecrets>;
    try {
      shown = printedSecrets(next.output);
      expect(shown.adminToken).toMatch(/^adm_/);
      expect(shown.adminToken).not.toBe(lost.firstStart?.adminToken);
      // The default account is the one created then, with a key of its own now.
      expect(shown.accountId).toBe(lost.firstStart?.defaultAccount?.accountId);
      expect(shown.apiKey).not.toBe(lost.firstStart?.defaultAccount?.apiKey);
      const started = await post(next.url, "/v1/calls/start", shown.apiKey, {
        call_id: "after-lost-secrets",
        identity_hints: { ani: "+14155550123" },
      });
      expect(started.status).toBe(200);
      const withShown = await request(next.url, "POST", "/admin/v1/accounts", {
        token: shown.adminToken,
        body: { name: "With the shown token" },
      });
      expect(withShown.status).toBe(200);
      const withLost = await request(next.url, "POST", "/admin/v1/accounts", {
        token: lost.firstStart?.adminToken,
        body: { name: "With the lost token" },
      });
      expect(withLost.status).toBe(401);
    } finally {
      await next.stop();
    }

    const after = await startServerProcess({ ...lostEnv, ADMIN_TOKEN: "" });
    try {
      expect(printedSecrets(after.output).adminToken).toBeUndefined();
    } finally {
      await after.stop();
    }
  }, 120_000);
});
