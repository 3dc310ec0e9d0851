import { describe, expect, test } from "vitest";
import { post } from "../helpers/rest-client.ts";
import { runToExit } from "../helpers/run-to-exit.ts";
import { ADMIN_TOKEN, startTestServer } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// What the service shows a browser and the network: helmet's headers on the
// dashboard and /docs, a dashboard that reads forms only, /metrics off the
// API's port (contract/metrics.test.ts), an admin token long enough.

const fixture = useTestServer();
const MIB = "x".repeat(1024 * 1024);

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(new URL(path, fixture.server.url), { headers, redirect: "manual" });

function policyOf(response: Response): Map<string, string> {
  const csp = response.headers.get("content-security-policy") ?? "";
  return new Map(
    csp
      .split(";")
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0] !== "")
      .map(([name = "", ...values]) => [name, values.join(" ")]),
  );
}

describe.each(["/dashboard/sign-in", "/docs"])("the browser page %s", (path) => {
  test("carries a policy that loads only this server's scripts and forbids framing, nosniff and no referrer", async () => {
    const res = await get(path);
    expect(res.status).toBe(200);
    const policy = policyOf(res);
    expect(policy.get("frame-ancestors")).toBe("'none'");
    expect(policy.get("script-src")).toBe("'self'");
    expect(policy.get("default-src")).toBe("'none'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    // Served over plain HTTP here: no HSTS.
    expect(res.headers.get("strict-transport-security")).toBeNull();
  });
});

test("/docs has no inline script, so its policy does not need 'unsafe-inline' for scripts", async () => {
  const page = await (await get("/docs")).text();
  const scripts = [...page.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
  expect(scripts.length).toBeGreaterThan(0);
  for (const [, attributes, body] of scripts) {
    expect(attributes).toMatch(/src="\/docs\//);
    expect(body?.trim()).toBe("");
  }
  expect((await get("/docs/reference.js")).status).toBe(200);
});

test("HSTS is sent on the dashboard and /docs when they are served over TLS (behind a trusted proxy)", async () => {
  const proxied = await startTestServer({ env: { TRUST_PROXY: "true" } });
  try {
    for (const path of ["/dashboard/sign-in", "/docs"]) {
      const res = await fetch(new URL(path, proxied.url), { headers: { "x-forwarded-proto": "https" } });
      expect(res.headers.get("strict-transport-security")).toMatch(/^max-age=\d{7,}/);
    }
    const api = await fetch(new URL("/v1/health", proxied.url), { headers: { "x-forwarded-proto": "https" } });
    expect(api.status).toBe(200);
  } finally {
    await proxied.stop();
  }
});

describe("the dashboard reads forms only", () => {
  test.each(["application/json", "text/plain"])("a 1 MiB %s body is refused with 415, not read", async (type) => {
    const body = type === "application/json" ? JSON.stringify({ email: MIB }) : MIB;
    const res = await fetch(new URL("/dashboard/sign-in", fixture.server.url), {
      method: "POST",
      headers: { "content-type": type },
      body,
    });
    expect(res.status).toBe(415);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  });

  test("a form is still read (and refused for its missing CSRF token, as before)", async () => {
    const res = await fetch(new URL("/dashboard/sign-in", fixture.server.url), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=a%40example.com&password=x",
    });
    expect(res.status).toBe(403);
  });
});

describe("ADMIN_TOKEN", () => {
  test("shorter than 32 characters stops the start with one line", async () => {
    const run = await runToExit(["src/main.ts"], { ADMIN_TOKEN: "sixteen-chars-ok", PORT: "0", DATA_DIR: ":memory:" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("ADMIN_TOKEN: must be at least 32 characters");
  });
});

describe("ADMIN_LISTEN", () => {
  test("serves the admin API on its own address and nothing of it on the public port", async () => {
    const split = await startTestServer({ env: { ADMIN_LISTEN: "127.0.0.1:0" } });
    try {
      const adminUrl = split.adminUrl ?? "";
      expect(adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(adminUrl).not.toBe(split.url);
      const account = { name: "Split", tier: "free", quota: 10 };
      const publicRest = await post(split.url, "/admin/v1/accounts", ADMIN_TOKEN, account);
      expect(publicRest.status).toBe(404);
      const publicConnect = await fetch(new URL("/callercontext.v1.AdminService/CreateAccount", split.url), {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
        body: JSON.stringify(account),
      });
      expect(publicConnect.status).toBe(404);
      const created = await post(adminUrl, "/admin/v1/accounts", ADMIN_TOKEN, account);
      expect(created.status).toBe(200);
      // Calls and the dashboard stay on the public port.
      const key = await post(adminUrl, `/admin/v1/accounts/${created.body.account.account_id}/keys`, ADMIN_TOKEN, {
        kind: "test",
      });
      const start = { call_id: "split-1", identity_hints: { ani: "+14155550123" } };
      expect((await post(split.url, "/v1/calls/start", key.body.api_key, start)).status).toBe(200);
      expect((await fetch(new URL("/v1/calls/start", adminUrl), { method: "POST" })).status).toBe(404);
      expect((await fetch(new URL("/dashboard/sign-in", adminUrl))).status).toBe(404);
    } finally {
      await split.stop();
    }
  });
});
