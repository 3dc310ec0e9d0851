import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { useNewProcessUmask } from "../helpers/process-umask.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../helpers/test-server.ts";
import { PLATFORM_CASES } from "../integrations/platform-case.ts";

// Secrets the service reads back are sealed with AES-256-GCM: neither the
// database's rows nor (embedded) any of its files on disk show them.

useNewProcessUmask();
const RETELL = PLATFORM_CASES.find((platform) => platform.platform === "retell");
if (RETELL === undefined) throw new Error("no Retell case");
const keyOf = () => randomBytes(32).toString("base64");
// Each embedded start on disk opens and migrates a database: several seconds on a busy machine.
const SLOW = 240_000;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cc-secrets-"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function createRetell(server: TestServer, signingSecret: string) {
  const { accountId } = await createAccountWithKey(server.url);
  const created = await post(server.url, `/admin/v1/accounts/${accountId}/integrations`, ADMIN_TOKEN, {
    platform: "retell",
    name: "Retell line",
    ...RETELL?.create,
    signing_secret: signingSecret,
  });
  expect(created.status).toBe(200);
  return {
    id: created.body.integration.integration_id as string,
    path: created.body.integration.webhook_path as string,
  };
}

/** A signed Retell inbound: 200 only when the service read the signing secret back. */
async function inbound(server: TestServer, path: string, signingSecret: string): Promise<number> {
  const payload = RETELL?.inbound ?? "";
  const signing = {
    payload,
    secrets: { webhookSecret: "", signingSecret },
    kind: "inbound" as const,
    nowMs: Date.now(),
    url: new URL(path, server.url).toString(),
  };
  const headers = (await RETELL?.headers(signing)) ?? {};
  return (await request(server.url, "POST", path, { rawBody: payload, headers })).status;
}

async function storedSecrets(server: TestServer): Promise<string[]> {
  const db = server.context.database.db;
  const integrations = await db.selectFrom("integrations").select("signing_secret").execute();
  const cookie = await db
    .selectFrom("settings")
    .select("value")
    .where("name", "=", "dashboard_cookie_secret")
    .execute();
  return [...integrations.map((row) => String(row.signing_secret)), ...cookie.map((row) => row.value)];
}

async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path)).includes(needle)) found.push(path);
  }
  return found;
}

describe("on the embedded database's disk", () => {
  test(
    "a Retell API key given as signing secret is in no file of DATA_DIR, and its webhooks still verify",
    async () => {
      const dataDir = join(root, "embedded");
      const secret = `key_retell_${randomBytes(12).toString("hex")}`;
      const server = await startTestServer({ env: { DATABASE_URL: "", DATA_DIR: dataDir, SECRETS_KEY: "" } });
      try {
        const { path } = await createRetell(server, secret);
        expect(await inbound(server, path, secret)).toBe(200);
        // The dashboard's cookie key is made when the dashboard is first used.
        expect((await fetch(new URL("/dashboard/sign-in", server.url))).status).toBe(200);
        const stored = await storedSecrets(server);
        expect(stored).toHaveLength(2);
        for (const value of stored) expect(value).toMatch(/^enc:v1:[0-9a-f]{8}:/);
        expect(server.secretsKey).toEqual({ kind: "file", path: join(dataDir, "secrets.key"), created: true });
      } finally {
        await server.stop();
      }
      expect(await filesContaining(dataDir, secret)).toEqual([]);
      expect((await stat(join(dataDir, "secrets.key"))).mode & 0o777).toBe(0o600);
    },
    SLOW,
  );

  test(
    "npm start's first start prints where the key file is; later starts reuse it",
    async () => {
      const dataDir = join(root, "first");
      const env = { DATABASE_URL: "", DATA_DIR: dataDir, SECRETS_KEY: "" };
      const first = await startServerProcess(env);
      await first.stop();
      const keyFile = join(dataDir, "secrets.key");
      expect(first.output.join("\n")).toContain(`Secrets key created: ${keyFile}`);
      const key = await readFile(keyFile, "utf8");
      const second = await startServerProcess(env);
      await second.stop();
      expect(second.output.join("\n")).not.toContain("Secrets key created");
      expect(await readFile(keyFile, "utf8")).toBe(key);
    },
    SLOW,
  );
});

describe("stored secrets across restarts (the configured database)", () => {
  let database: TestDatabase;
  const dataDir = () => join(root, "restarts");
  const start = (env: Record<string, string>) =>
    startTestServer({
      database,
      env: { ...database.env, ...(database.env.DATA_DIR ? { DATA_DIR: dataDir() } : {}), ...env },
    });

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  test(
    "a plain-text secret from before sealing is sealed at the next start; a rotated key reseals and a lost key stops the start",
    async () => {
      const secret = `key_retell_${randomBytes(12).toString("hex")}`;
      const [first, second, third] = [keyOf(), keyOf(), keyOf()];

      let server = await start({ SECRETS_KEY: first });
      const { id, path } = await createRetell(server, secret);
      // As an older version stored it.
      await sql`update integrations set signing_secret = ${secret} where id = ${id}`.execute(
        server.context.database.db,
      );
      await server.stop();

      server = await start({ SECRETS_KEY: first });
      const sealed = (await storedSecrets(server)).find((value) => value.startsWith("enc:v1:"));
      expect(sealed).toMatch(/^enc:v1:/);
      expect(await storedSecrets(server)).not.toContain(secret);
      expect(await inbound(server, path, secret)).toBe(200);
      await server.stop();

      server = await start({ SECRETS_KEY: second, SECRETS_KEY_PREVIOUS: first });
      expect(await storedSecrets(server)).not.toContain(sealed);
      expect(server.logLines.some((line) => line.includes("stored secrets sealed with the current key"))).toBe(true);
      await server.stop();

      // The previous key is no longer needed once a start has resealed.
      server = await start({ SECRETS_KEY: second });
      expect(await inbound(server, path, secret)).toBe(200);
      await server.stop();

      await expect(start({ SECRETS_KEY: third })).rejects.toThrow(/neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS/);
    },
    SLOW,
  );
});
