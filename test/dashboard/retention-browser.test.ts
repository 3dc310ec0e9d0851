import { describe, expect, it } from "vitest";
import { useServerAndBrowser } from "../helpers/browser.ts";
import { linkIn, logMailbox } from "../helpers/mailbox.ts";
import { post, request } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";

// The account's caller memory and a caller's "do not remember" in a real browser: the owner sets the
// retention on the Account page (a figure outside 7..365 is refused at the field), marks a customer made by
// a real call "do not remember" from their page, and lifts the mark on the Customers page.

describe("caller memory in a browser", () => {
  const env = useServerAndBrowser();
  const url = (p: string) => new URL(p, env.server.url).toString();

  it("sets the retention, forgets a caller and lifts the mark", async () => {
    const { page } = env.browser;
    await page.goto(url("/dashboard/sign-up"));
    await page.getByLabel("Email").fill("memory@example.com");
    await page.getByLabel("Password").fill("a long and unique passphrase");
    await page.getByLabel("Account name").fill("Memory Inc");
    await page.getByRole("button", { name: "Sign up" }).click();
    await expect.poll(() => page.getByRole("heading", { name: "Check your email" }).isVisible()).toBe(true);
    await page.goto(await linkIn(logMailbox(env.server), "memory@example.com", "/dashboard/verify/"));
    await page.getByRole("button", { name: "Confirm and sign in" }).click();
    const key = await page.getByLabel("Secret key").inputValue();
    const main = page.locator("main");

    // Retention: 90 days to begin with; 400 outside 7..365, kept in the field; then 30.
    await page.getByRole("link", { name: "Account" }).click();
    const days = page.getByLabel("Remember callers for (days, 7 to 365)");
    expect(await days.inputValue()).toBe("90");
    await days.fill("400");
    const refused = page.waitForResponse((res) => res.url().endsWith("/dashboard/account/retention"));
    await page.getByRole("button", { name: "Save" }).click();
    expect((await refused).status()).toBe(400);
    expect(await page.locator("#retention-error").textContent()).toBe("Must be an integer from 7 to 365");
    expect(await days.inputValue()).toBe("400");
    await env.browser.screenshot("account-retention-refused");
    await days.fill("30");
    await page.getByRole("button", { name: "Save" }).click();
    expect(await main.textContent()).toContain("remembered for 30 days");
    expect(await days.inputValue()).toBe("30");
    await env.browser.screenshot("account-retention");
    const accountId = (await page.locator("dd.mono").first().textContent())?.trim() ?? "";
    const account = await request(env.server.url, "GET", `/admin/v1/accounts/${accountId}`, { token: ADMIN_TOKEN });
    expect(account.body.account.context_retention_days).toBe(30);

    // A caller made by a real call, then "do not remember" from their page.
    const hints = { ani: "+14155550188", external_ids: { crm_id: "77" } };
    const started = await post(env.server.url, "/v1/calls/start", key, { call_id: "mem-1", identity_hints: hints });
    const ref: string = started.body.customer_ref;
    await post(env.server.url, "/v1/calls/end", key, { call_id: "mem-1", customer_ref: ref, variables: { a: "b" } });
    await page.goto(url(`/dashboard/customers/${ref}?mode=test`));
    await env.browser.screenshot("customer-forget-button");
    await page.getByRole("link", { name: "Do not remember…" }).click();
    expect(await main.textContent()).toContain("1 number and 1 external id");
    await env.browser.screenshot("customer-forget-confirm");
    await page.getByRole("button", { name: "Do not remember" }).click();
    expect(await main.textContent()).toContain("are no longer remembered");
    const later = await post(env.server.url, "/v1/calls/start", key, { call_id: "mem-2", identity_hints: hints });
    expect(later.body.customer_ref).not.toBe(ref);
    expect(later.body.identity.confidence).toBe(0);
    await page.getByLabel("Number, external id or customer_ref").fill("crm_id:77");
    await page.getByRole("button", { name: "Search" }).click();
    expect(await main.textContent()).toContain("No customer holds");

    // Lifted by the number: the next call is remembered again.
    await page.getByLabel("Number or external id").fill("(415) 555-0188");
    await page.getByRole("button", { name: "Lift the mark" }).click();
    expect(await main.textContent()).toContain("The mark was lifted");
    await env.browser.screenshot("customers-lift");
    const again = await post(env.server.url, "/v1/calls/start", key, { call_id: "mem-3", identity_hints: hints });
    const remembered = await post(env.server.url, "/v1/calls/start", key, { call_id: "mem-4", identity_hints: hints });
    expect(remembered.body.customer_ref).toBe(again.body.customer_ref);
    await page.getByLabel("Number or external id").fill("crm_id:77");
    await page.getByRole("button", { name: "Lift the mark" }).click();
    expect(await main.textContent()).toContain("nothing to lift");

    await page.goto(url("/dashboard/account"));
    const log = (await page.locator("table.audit").textContent()) ?? "";
    for (const event of ["Retention changed", "Customer forgotten", "Forget me lifted"]) expect(log).toContain(event);
    for (const gone of ["+14155550188", "crm_id"]) expect(log).not.toContain(gone);
  });
});
