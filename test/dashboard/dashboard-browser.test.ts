import { describe, expect, it } from "vitest";
import { useServerAndBrowser } from "../helpers/browser.ts";
import { linkIn, logMailbox } from "../helpers/mailbox.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";

// The whole self-service flow in a real browser, as a new customer meets it:
// sign up, use the first key, see the usage, create, roll and revoke a
// production key, and the guards around it (CSRF, isolation, sign-out).

const PASSWORD = "a long and unique passphrase";
const startBody = (n: string) => ({
  call_id: `dash-${n}-${Date.now()}`,
  identity_hints: { external_ids: { crm_id: n } },
});

describe("dashboard in a browser", () => {
  const env = useServerAndBrowser();
  const url = (p: string) => new URL(p, env.server.url).toString();
  const start = (key: string, n: string) => post(env.server.url, "/v1/calls/start", key, startBody(n));

  it("takes a new customer from sign-up to a revoked production key", async () => {
    const { page } = env.browser;

    // Signed out, every page leads to sign-in.
    await page.goto(url("/dashboard"));
    await expect.poll(() => page.url()).toBe(url("/dashboard/sign-in"));
    await env.browser.screenshot("sign-in");
    await page.getByRole("link", { name: "Create an account" }).click();
    await env.browser.screenshot("sign-up");

    await page.getByLabel("Email").fill("founder@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Account name").fill("Acme Telecom");
    await page.getByRole("button", { name: "Sign up" }).click();
    await expect.poll(() => page.getByRole("heading", { name: "Check your email" }).isVisible()).toBe(true);
    await env.browser.screenshot("check-email");
    // The mailed link asks to confirm; confirming signs in.
    await page.goto(await linkIn(logMailbox(env.server), "founder@example.com", "/dashboard/verify/"));
    await env.browser.screenshot("verify-email");
    await page.getByRole("button", { name: "Confirm and sign in" }).click();

    // The first key: shown once, read-only, labelled "Secret key".
    const secretField = page.getByLabel("Secret key");
    const testKey = await secretField.inputValue();
    expect(testKey).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(await secretField.getAttribute("readonly")).not.toBeNull();
    await expect.poll(() => page.getByRole("button", { name: "Copy", exact: true }).isVisible()).toBe(true);
    await env.browser.screenshot("keys-first-key");
    await page.goto(url("/dashboard/keys"));
    expect(await page.content()).not.toContain(testKey);
    expect(await page.getByLabel("Secret key").count()).toBe(0);

    // That key answers a real start, and the usage page shows the billed call.
    expect((await start(testKey, "first")).status).toBe(200);
    await page.getByRole("link", { name: "Usage" }).click();
    const stats = page.locator(".stats");
    expect(await stats.textContent()).toContain("99");
    expect(await page.locator(".legend").textContent()).toMatch(/Test\s*1/);
    expect(await page.locator("svg.chart.wide rect.test").count()).toBe(1);
    await env.browser.screenshot("usage");

    // A production key, rolled with a one-hour grace: both secrets answer.
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name").fill("IVR production");
    await page.getByLabel("Kind").selectOption("prod");
    await page.getByRole("button", { name: "Create key" }).click();
    const prodKey = await page.getByLabel("Secret key").inputValue();
    expect(prodKey).toMatch(/^sk_prod_/);
    expect((await start(prodKey, "prod-before-roll")).status).toBe(200);

    const prodRow = page.locator("tr", { hasText: "IVR production" });
    await prodRow.getByLabel("Old secret works for").selectOption("1h");
    await prodRow.getByRole("button", { name: "Roll" }).click();
    const rolledKey = await page.getByLabel("Secret key").inputValue();
    expect(rolledKey).toMatch(/^sk_prod_/);
    expect(rolledKey).not.toBe(prodKey);
    expect(await page.locator(".secret-card").textContent()).toContain("keeps working until");
    expect(await page.locator("tr", { hasText: "IVR production" }).locator(".status.expiring").count()).toBe(1);
    await env.browser.screenshot("keys-rolled");
    expect((await start(prodKey, "old-in-grace")).status).toBe(200);
    expect((await start(rolledKey, "new-after-roll")).status).toBe(200);

    // Revoke the new secret, after confirming: it is refused at once.
    const activeRow = page.locator("tr", { hasText: "IVR production" }).filter({ hasText: "Active" });
    await activeRow.getByRole("link", { name: "Revoke" }).click();
    await env.browser.screenshot("revoke-confirm");
    await page.getByRole("button", { name: "Revoke" }).click();
    await expect.poll(() => page.url()).toBe(url("/dashboard/keys"));
    const refused = await start(rolledKey, "after-revoke");
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe("API key has been revoked");
    await env.browser.screenshot("keys");

    // The account page and its security log.
    await page.getByRole("link", { name: "Account" }).click();
    const log = await page.locator("table.audit").textContent();
    for (const event of ["Sign up", "Key created", "Key rolled", "Key revoked"]) expect(log).toContain(event);
    await env.browser.screenshot("account");
  });

  it("answers 403 to a form posted without its CSRF token and changes nothing", async () => {
    const { page } = env.browser;
    await page.goto(url("/dashboard/keys"));
    const before = await page.locator("tbody tr").count();
    await page.getByLabel("Name").fill("Forged key");
    // The form as a forging site would send it: everything but the token.
    await page.locator('form[action="/dashboard/keys"] input[name="_csrf"]').evaluate((input) => input.remove());
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/dashboard/keys") && r.request().method() === "POST"),
      page.getByRole("button", { name: "Create key" }).click(),
    ]);
    expect(response.status()).toBe(403);
    await env.browser.screenshot("csrf-refused");
    await page.goto(url("/dashboard/keys"));
    expect(await page.locator("tbody tr").count()).toBe(before);
    expect(await page.content()).not.toContain("Forged key");
  });

  it("answers 404 for another account's key id and leaves that key working", async () => {
    const { page } = env.browser;
    const other = await createAccountWithKey(env.server.url, { tier: "growth", quota: 100 });
    const confirm = await page.goto(url(`/dashboard/keys/${other.keyId}/revoke`));
    expect(confirm?.status()).toBe(404);
    await env.browser.screenshot("not-found");
    // A revoke form of our own page, pointed at the other account's key, with a valid token.
    await page.goto(url("/dashboard/keys"));
    await page
      .locator('form[action$="/roll"]')
      .first()
      .evaluate((form, id) => form.setAttribute("action", `/dashboard/keys/${id}/revoke`), other.keyId);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().includes(other.keyId)),
      page.locator('form[action$="/revoke"]').first().getByRole("button").click(),
    ]);
    expect(response.status()).toBe(404);
    expect((await start(other.apiKey, "other-account")).status).toBe(200);
  });

  it("signs out, after which pages redirect to sign-in", async () => {
    const { page } = env.browser;
    await page.goto(url("/dashboard/keys"));
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect.poll(() => page.url()).toBe(url("/dashboard/sign-in"));
    for (const path of ["/dashboard/keys", "/dashboard/usage", "/dashboard/account"]) {
      await page.goto(url(path));
      expect(page.url()).toBe(url("/dashboard/sign-in"));
    }
  });
});
