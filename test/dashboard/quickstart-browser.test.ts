import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { useServerAndBrowser } from "../helpers/browser.ts";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { logMailbox } from "../helpers/mailbox.ts";

// The pages a new key leads to, in a real browser: the quickstart beside the
// secret (its commands run as written), a reload that neither posts again nor
// shows the secret again, the Requests page listing those calls, the usage
// per key, and the icon.

const PASSWORD = "a long and unique passphrase";
const run = promisify(execFile);
/** buf (for `buf curl`) comes with the project's packages. */
const BIN = path.resolve("node_modules/.bin");
const shell = async (command: string) => {
  const { stdout } = await run("bash", ["-c", command], {
    env: { ...process.env, PATH: `${BIN}:${process.env.PATH}` },
  });
  return stdout;
};

describe("quickstart, requests and usage per key in a browser", () => {
  const env = useServerAndBrowser();
  const url = (p: string) => new URL(p, env.server.url).toString();

  it("shows a quickstart whose commands work, once; then the requests and the usage per key", async () => {
    const { page } = env.browser;
    const client = createDashboardClient(env.server.url, { mailbox: logMailbox(env.server) });
    await client.signUp("quick@example.com", PASSWORD, "Quickstart Co");
    await page.goto(url("/dashboard/sign-in"));
    await page.getByLabel("Email").fill("quick@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();

    await page.getByLabel("Name").fill("Quickstart demo");
    await page.getByRole("button", { name: "Create key" }).click();
    // Post/Redirect/Get: the answer is the keys page itself, fetched with GET.
    await expect.poll(() => page.url()).toBe(url("/dashboard/keys"));
    const secret = await page.getByLabel("Secret key").inputValue();
    expect(secret).toMatch(/^sk_test_/);
    const quickstart = page.getByRole("region", { name: "Quickstart" });
    const startCommand = (await quickstart.locator("#qs-start").textContent()) ?? "";
    const endCommand = (await quickstart.locator("#qs-end").textContent()) ?? "";
    const grpcCommand = (await quickstart.locator("#qs-grpc").textContent()) ?? "";
    for (const command of [startCommand, endCommand, grpcCommand]) {
      expect(command).toContain(secret);
      expect(command).toContain(new URL(env.server.url).host);
    }
    await expect.poll(() => page.getByRole("button", { name: "Copy the start command" }).isVisible()).toBe(true);
    await env.browser.screenshot("keys-quickstart");

    // The commands, run as written.
    const started = JSON.parse(await shell(startCommand));
    expect(started.customer_ref).toMatch(/^[0-9a-f-]{36}$/);
    const ended = JSON.parse(await shell(endCommand));
    expect(ended.customer_ref).toBe(started.customer_ref);
    expect(ended.call_end).toBeDefined();
    const grpcStarted = JSON.parse(await shell(grpcCommand));
    expect(grpcStarted.customerRef).toBe(started.customer_ref);
    // The same start again is a conflict: a call_id is used once.
    expect(JSON.parse(await shell(startCommand)).error).toBe("Conflict");

    // A reload is a GET: nothing is created again and the secret is gone.
    const rows = await page.locator("table.keys tbody tr").count();
    await page.reload();
    expect(await page.locator("table.keys tbody tr").count()).toBe(rows);
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByRole("region", { name: "Quickstart" }).count()).toBe(0);

    await page.getByRole("link", { name: "Requests" }).click();
    const table = page.locator("table.requests");
    const text = (await table.textContent()) ?? "";
    expect(text).toContain("POST /v1/calls/start");
    expect(text).toContain("POST /v1/calls/end");
    expect(text).toContain("CallerContextService/StartCall");
    expect(text).toContain("gRPC");
    expect(await table.locator(".code.client").count()).toBe(1);
    expect(await table.locator("tbody tr").count()).toBe(4);
    expect(await page.content()).not.toContain(secret);
    await env.browser.screenshot("requests");

    // Start, end and the gRPC start each took a credit; the conflict did not.
    await page.getByRole("link", { name: "Usage" }).click();
    const demo = page.locator("table.key-usage tr", { hasText: "Quickstart demo" });
    expect(await demo.locator('td[data-label="Billed calls"]').textContent()).toBe("3");
    await env.browser.screenshot("usage-per-key");

    const icon = await page.goto(url("/favicon.ico"));
    expect(icon?.status()).toBe(200);
    expect(icon?.headers()["content-type"]).toBe("image/x-icon");
  });

  it("shows an empty Requests page to an account with no calls yet", async () => {
    const { page } = env.browser;
    const client = createDashboardClient(env.server.url, { mailbox: logMailbox(env.server) });
    await client.signUp("quiet@example.com", PASSWORD, "Quiet Co");
    await env.browser.context.clearCookies();
    await page.goto(url("/dashboard/sign-in"));
    await page.getByLabel("Email").fill("quiet@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.goto(url("/dashboard/requests"));
    expect(await page.locator("main").textContent()).toContain("No requests in the last 7 days");
    await env.browser.screenshot("requests-empty");
  });
});
