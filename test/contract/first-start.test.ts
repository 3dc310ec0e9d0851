import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { post, request } from "../helpers/rest-client.ts";
import { startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase } from "../helpers/test-database.ts";

// A newcomer's first `npm start`: no ADMIN_TOKEN, an empty database.

let env: Record<string, string>;
let cleanUp: () => Promise<void>;

beforeAll(async () => {
  if (process.env.DATABASE_URL) {
    const database = await createTestDatabase();
    env = database.env;
    cleanUp = database.drop;
  } else {
    const dir = await mkdtemp(join(tmpdir(), "cc-first-start-"));
    env = { DATA_DIR: dir, DATABASE_URL: "" };
    cleanUp = () => rm(dir, { recursive: true, force: true });
  }
});
afterAll(() => cleanUp());

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
