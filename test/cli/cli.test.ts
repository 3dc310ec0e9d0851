import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CliEnv, type CliResult, runCli, runCliJson } from "../helpers/cli-runner.ts";
import { post } from "../helpers/rest-client.ts";
import { createTestDatabase } from "../helpers/test-database.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { TELNYX_KEYS } from "../integrations/telnyx-signing.ts";

// The CLI as an operator runs it: a child process talking to the real server.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const cli = (args: string[], env?: CliEnv) => runCli(server.url, args, env);
const cliJson = (args: string[], env?: CliEnv) => runCliJson(server.url, args, env);

function expectOneLineError(result: CliResult, code: number, pattern: RegExp): void {
  expect(result.code).toBe(code);
  expect(result.stdout).toBe("");
  expectStderrLine(result, pattern);
}

function expectStderrLine(result: CliResult, pattern: RegExp): void {
  expect(result.stderr.endsWith("\n")).toBe(true);
  expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
}

/** A port nothing listens on: bound by the system, then released. */
async function closedPort(): Promise<number> {
  const listener = createServer().listen(0, "127.0.0.1");
  await once(listener, "listening");
  const { port } = listener.address() as AddressInfo;
  await new Promise((resolve) => listener.close(resolve));
  return port;
}

const startCall = (key: string, callId: string) =>
  post(server.url, "/v1/calls/start", key, { call_id: callId, identity_hints: { ani: "+14155550123" } });

describe("accounts", () => {
  test("create --json prints exactly the seven account fields, with tier free by default", async () => {
    const account = await cliJson(["accounts", "create", "--name", "Acme Dental"]);
    expect(Object.keys(account).sort()).toEqual([
      "account_id",
      "billing_account_id",
      "context_retention_days",
      "name",
      "quota_remaining",
      "repeat_window_days",
      "tier",
    ]);
    expect(account).toEqual({
      account_id: expect.stringMatching(/^acct_\w+$/),
      billing_account_id: expect.stringMatching(/^ba_\w+$/),
      name: "Acme Dental",
      tier: "free",
      quota_remaining: server.config.monthlyQuota.free,
      context_retention_days: 90,
      repeat_window_days: 7,
    });
  });

  test("create takes --tier and --quota", async () => {
    const account = await cliJson(["accounts", "create", "--name", "Big", "--tier", "scale", "--quota", "42"]);
    expect(account).toMatchObject({ name: "Big", tier: "scale", quota_remaining: 42 });
  });

  test("show returns the account as created", async () => {
    const created = await cliJson(["accounts", "create", "--name", "Shown"]);
    expect(await cliJson(["accounts", "show", created.account_id])).toEqual(created);
  });

  test("set-quota replaces the remaining credits, and show sees it", async () => {
    const created = await cliJson(["accounts", "create", "--name", "Quota"]);
    const updated = await cliJson(["accounts", "set-quota", created.account_id, "7"]);
    expect(updated).toEqual({ ...created, quota_remaining: 7 });
    expect((await cliJson(["accounts", "show", created.account_id])).quota_remaining).toBe(7);
  });

  test("set-tier changes the tier, and show sees it", async () => {
    const created = await cliJson(["accounts", "create", "--name", "Tier"]);
    const updated = await cliJson(["accounts", "set-tier", created.account_id, "growth"]);
    expect(updated).toEqual({ ...created, tier: "growth" });
    expect((await cliJson(["accounts", "show", created.account_id])).tier).toBe("growth");
  });

  test("set-retention sets the days callers are remembered, from 7 to 365", async () => {
    const created = await cliJson(["accounts", "create", "--name", "Retention"]);
    expect(created.context_retention_days).toBe(90);
    const updated = await cliJson(["accounts", "set-retention", created.account_id, "30"]);
    expect(updated).toEqual({ ...created, context_retention_days: 30 });
    for (const bound of ["7", "365"]) {
      const atBound = await cliJson(["accounts", "set-retention", created.account_id, bound]);
      expect(atBound.context_retention_days).toBe(Number(bound));
    }
  });

  test("without --json the output is readable text naming the account", async () => {
    const created = await cliJson(["accounts", "create", "--name", "Readable"]);
    const result = await cli(["accounts", "show", created.account_id]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(created.account_id);
    expect(result.stdout).toContain("Readable");
    expect(() => JSON.parse(result.stdout)).toThrow();
  });
});

describe("keys", () => {
  let accountId: string;
  beforeAll(async () => {
    accountId = (await cliJson(["accounts", "create", "--name", "Keys", "--tier", "growth"])).account_id;
  });

  test("create returns a working key: it starts a call", async () => {
    const key = await cliJson(["keys", "create", "--account", accountId]);
    expect(key).toEqual({
      key_id: expect.stringMatching(/^key_\w+$/),
      api_key: expect.stringMatching(/^sk_test_/),
      kind: "test",
      account_id: accountId,
    });
    const started = await startCall(key.api_key, "cli-key-1");
    expect(started.status, JSON.stringify(started.body)).toBe(200);
  });

  test("create --kind prod makes a prod key", async () => {
    const key = await cliJson(["keys", "create", "--account", accountId, "--kind", "prod"]);
    expect(key).toMatchObject({ kind: "prod", api_key: expect.stringMatching(/^sk_prod_/) });
  });

  test("list shows the key by prefix and never its secret", async () => {
    const key = await cliJson(["keys", "create", "--account", accountId]);
    const listed = await cliJson(["keys", "list", "--account", accountId]);
    const entry = listed.keys.find((k: { key_id: string }) => k.key_id === key.key_id);
    expect(entry).toEqual({
      key_id: key.key_id,
      account_id: accountId,
      kind: "test",
      prefix: expect.any(String),
      revoked: false,
    });
    expect(key.api_key.startsWith(entry.prefix)).toBe(true);
    expect(entry.prefix.length).toBeLessThan(key.api_key.length);
    expect(JSON.stringify(listed)).not.toContain(key.api_key);

    const human = await cli(["keys", "list", "--account", accountId]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(key.key_id);
    expect(human.stdout).not.toContain(key.api_key);
  });

  test("revoke stops the key: calls get 401 'API key has been revoked'", async () => {
    const key = await cliJson(["keys", "create", "--account", accountId]);
    expect((await startCall(key.api_key, "cli-revoke-1")).status).toBe(200);

    expect(await cliJson(["keys", "revoke", key.key_id])).toEqual({ key_id: key.key_id, revoked: true });

    const refused = await startCall(key.api_key, "cli-revoke-2");
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe("API key has been revoked");
    const listed = await cliJson(["keys", "list", "--account", accountId]);
    expect(listed.keys.find((k: { key_id: string }) => k.key_id === key.key_id).revoked).toBe(true);
  });
});

describe("errors", () => {
  test("an unknown account exits 1 with the server's reason on one stderr line", async () => {
    const result = await cli(["accounts", "show", "acct_missing"]);
    expectOneLineError(result, 1, /^caller-context: Account 'acct_missing' not found \(404\)\n$/);
  });

  test("with --json a failure is exactly one JSON object on stdout, its code and reason, and exits non-zero", async () => {
    const missing = await cli(["accounts", "show", "acct_missing", "--json"]);
    expect(missing.code).toBe(1);
    expect(missing.stdout.trimEnd().split("\n")).toHaveLength(1);
    expect(JSON.parse(missing.stdout)).toEqual({
      error: { code: "not_found", message: "Account 'acct_missing' not found (404)" },
    });
    expectStderrLine(missing, /^caller-context: Account 'acct_missing' not found \(404\)\n$/);

    const usage = await cli(["accounts", "set-quota", "acct_x", "lots", "--json"]);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toEqual({
      error: { code: "usage", message: expect.stringMatching(/^N must be a whole number/) },
    });
    const unknown = await cli(["nope", "--json"]);
    expect(JSON.parse(unknown.stdout).error.code).toBe("usage");
    const denied = await cli(["accounts", "show", "acct_x", "--json"], { ADMIN_TOKEN: "wrong-token-0123456789" });
    expect([denied.code, JSON.parse(denied.stdout).error.code]).toEqual([1, "unauthenticated"]);
  });

  test("revoking an unknown key exits 1", async () => {
    expectOneLineError(await cli(["keys", "revoke", "key_missing"]), 1, /^caller-context: Key 'key_missing'.*\(404\)/);
  });

  test("accounts create without --name is a usage error (exit 2)", async () => {
    expectOneLineError(await cli(["accounts", "create"]), 2, /^caller-context: --name is required/);
  });

  test("a tier outside the list is a usage error (exit 2)", async () => {
    expectOneLineError(await cli(["accounts", "create", "--name", "X", "--tier", "gold"]), 2, /--tier must be/);
  });

  test("a quota that is not a whole number is a usage error (exit 2)", async () => {
    expectOneLineError(await cli(["accounts", "set-quota", "acct_x", "1.5"]), 2, /N must be a whole number/);
  });

  test("a negative quota, or one above what the server stores, is named as a bad N (exit 2), not as an option", async () => {
    const bound = /N must be a whole number from 0 to 2147483647, got '(-5|2147483648)'/;
    expectOneLineError(await cli(["accounts", "set-quota", "acct_x", "-5"]), 2, bound);
    expectOneLineError(await cli(["accounts", "set-quota", "acct_x", "2147483648"]), 2, bound);
    const account = await cliJson(["accounts", "create", "--name", "Biggest", "--quota", "2147483647"]);
    expect(account.quota_remaining).toBe(2147483647);
  });

  test("retention outside 7..365, or not a whole number, is named as a bad DAYS (exit 2) before the server is asked", async () => {
    const bound = /DAYS must be a whole number of days from 7 to 365, got '(6|366|-5|30\.5)'/;
    for (const days of ["6", "366", "-5", "30.5"]) {
      expectOneLineError(await cli(["accounts", "set-retention", "acct_x", days]), 2, bound);
    }
    const json = await cli(["accounts", "set-retention", "acct_x", "400", "--json"]);
    expect([json.code, JSON.parse(json.stdout)]).toEqual([
      2,
      {
        error: {
          code: "usage",
          message: expect.stringMatching(/^DAYS must be a whole number of days from 7 to 365, got '400'/),
        },
      },
    ]);
  });

  test("an unknown command or option is a usage error (exit 2)", async () => {
    expectOneLineError(await cli(["accounts", "delete", "acct_x"]), 2, /unknown command 'accounts delete'/);
    expectOneLineError(await cli(["keys", "list", "--account", "a", "--tier", "free"]), 2, /Unknown option '--tier'/);
  });

  test("a wrong ADMIN_TOKEN exits 1 with the server's 401", async () => {
    const result = await cli(["accounts", "create", "--name", "Nope"], { ADMIN_TOKEN: "wrong-token-0123456789" });
    expectOneLineError(result, 1, /^caller-context: .*\(401\)\n$/);
  });

  test("a missing ADMIN_TOKEN is reported before any request", async () => {
    expectOneLineError(await cli(["accounts", "show", "acct_x"], { ADMIN_TOKEN: undefined }), 2, /ADMIN_TOKEN/);
  });

  test("an unreachable server exits 1 saying so", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const result = await cli(["accounts", "show", "acct_x"], { CALLER_CONTEXT_URL: url });
    expectOneLineError(result, 1, /^caller-context: cannot reach http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
  });

  test("--help after a group or a command prints only that group's or command's usage", async () => {
    const group = await cli(["accounts", "--help"]);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain("accounts set-quota ACCOUNT_ID N");
    expect(group.stdout).not.toContain("keys revoke");
    for (const args of [
      ["accounts", "create", "--help"],
      ["help", "accounts", "create"],
    ]) {
      const one = await cli(args);
      expect(one.code).toBe(0);
      expect(one.stdout).toMatch(/^Usage: caller-context accounts create --name NAME/);
      expect(one.stdout).not.toContain("accounts show");
    }
    expectOneLineError(await cli(["help", "nope"]), 2, /unknown command 'nope'/);
  });

  test("help prints usage on stdout and exits 0", async () => {
    for (const args of [["help"], ["--help"]]) {
      const result = await cli(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("accounts create --name NAME");
      expect(result.stdout).toContain("keys revoke KEY_ID");
    }
  });
});

describe("integrations", () => {
  test("create prints the webhook path and secret once; list shows it without the secret; delete removes it", async () => {
    const account = await cliJson(["accounts", "create", "--name", "Dental office"]);
    const created = await cliJson(
      [
        "integrations",
        "create",
        "--account",
        account.account_id,
        "--platform",
        "retell",
        "--name",
        "Front desk",
      ].concat(["--variables", "appointment_day, dentist", "--store-summary", "yes"]),
      { CALLER_CONTEXT_SIGNING_SECRET: "key_retell_api_0123456789" },
    );
    expect(created.integration).toMatchObject({
      platform: "retell",
      kind: "test",
      has_signing_secret: true,
      webhook_path: expect.stringMatching(/^\/v1\/integrations\/wh_[0-9A-Za-z]{32}$/),
      end_of_call: { intent_field: "intent", variable_fields: ["appointment_day", "dentist"], store_summary: true },
    });
    expect(created.webhook_secret).toMatch(/^whsec_/);
    const listed = await cli(["integrations", "list", "--account", account.account_id]);
    expect(listed.stdout).toContain(created.integration.webhook_path);
    expect(listed.stdout).not.toContain(created.webhook_secret);
    const id = created.integration.integration_id;
    expect(await cliJson(["integrations", "delete", id])).toEqual({ integration_id: id, deleted: true });
    expect(await cliJson(["integrations", "list", "--account", account.account_id])).toEqual({ integrations: [] });
  });

  test("docs/cli.md's example prints the full webhook URL, and for Twilio Studio the URL with its credentials", async () => {
    const account = await cliJson(["accounts", "create", "--name", "Support desk"]);
    const result = await cli(
      ["integrations", "create", "--account", account.account_id, "--platform", "twilio_studio", "--name", "Support"],
      { CALLER_CONTEXT_PUBLIC_URL: "https://cc.example.com" },
    );
    expect(result.code, result.stderr).toBe(0);
    const url = /webhook url\s+(\S+)/.exec(result.stdout)?.[1] ?? "";
    const secret = /webhook secret\s+(\S+)/.exec(result.stdout)?.[1] ?? "";
    expect(url).toMatch(/^https:\/\/cc\.example\.com\/v1\/integrations\/wh_[0-9A-Za-z]{32}$/);
    const studio = /studio url\s+(\S+)/.exec(result.stdout)?.[1];
    expect(studio).toBe(`https://studio:${secret}@cc.example.com${new URL(url).pathname}`);
    // One block: every value starts in the same column, the URL's and the secret's included.
    const block = result.stdout.split("\n\n")[0]!.split("\n");
    const valueColumns = new Set(block.map((line) => /^\S+(?: \S+)*\s{2,}/.exec(line)?.[0].length));
    expect([...valueColumns]).toEqual([16]);
  });

  test("create --platform telnyx takes the account's public key from the environment, and names a wrong one", async () => {
    const account = await cliJson(["accounts", "create", "--name", "Clinic"]);
    const args = ["integrations", "create", "--account", account.account_id, "--platform", "telnyx", "--name", "Desk"];
    const wrong = await cli(args, { CALLER_CONTEXT_SIGNING_SECRET: "KEY0123_an_api_key_not_the_public_key" });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain("signing_secret");
    const created = await cliJson(args, { CALLER_CONTEXT_SIGNING_SECRET: TELNYX_KEYS.publicKey });
    expect(created.integration).toMatchObject({ platform: "telnyx", has_signing_secret: true });
  });

  test("a platform's required flags are checked as the server checks them, and named as flags (exit 2)", async () => {
    const base = ["integrations", "create", "--account", "acct_x", "--name", "x", "--platform"];
    for (const platform of ["retell", "elevenlabs", "telnyx"]) {
      const result = await cli([...base, platform], { CALLER_CONTEXT_SIGNING_SECRET: undefined });
      expectOneLineError(result, 2, new RegExp(`--signing-secret .* is required for ${platform}`));
    }
    expectOneLineError(await cli([...base, "vapi"]), 2, /--assistant-id is required for vapi/);
  });

  test("a platform outside the list is a usage error (exit 2)", async () => {
    const result = await cli(["integrations", "create", "--account", "acct_x", "--platform", "zoom", "--name", "x"]);
    expect(result.code).toBe(2);
  });
});

describe("migrate", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cc-cli-migrate-"));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  test("applies every migration to a fresh embedded database once", async () => {
    const embedded = { DATA_DIR: dataDir, DATABASE_URL: undefined };
    const first = await cliJson(["migrate"], embedded);
    expect(first.applied[0]).toBe("0001_initial");
    expect(first).toEqual({ applied: expect.arrayContaining(["0001_initial"]) });
    expect(await cliJson(["migrate"], embedded)).toEqual({ applied: [] });

    const human = await cli(["migrate"], embedded);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/up to date/);
  }, 90_000);

  test("applies every migration once to a fresh database of the kind in use (PostgreSQL when DATABASE_URL is set)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cc-cli-migrate-"));
    const database = process.env.DATABASE_URL
      ? await createTestDatabase()
      : { env: { DATA_DIR: dir }, drop: () => rm(dir, { recursive: true, force: true }) };
    try {
      const first = await cliJson(["migrate"], database.env);
      expect(first.applied[0]).toBe("0001_initial");
      expect(await cliJson(["migrate"], database.env)).toEqual({ applied: [] });
    } finally {
      await database.drop();
    }
  }, 90_000);

  test("a bad DATABASE_URL exits 1 with one line", async () => {
    expectOneLineError(await cli(["migrate"], { DATABASE_URL: "not a url" }), 1, /invalid configuration: DATABASE_URL/);
  });
});
