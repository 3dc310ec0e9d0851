import { describe, expect, it } from "vitest";
import { useServerAndBrowser } from "../helpers/browser.ts";
import { linkIn, logMailbox } from "../helpers/mailbox.ts";
import { post } from "../helpers/rest-client.ts";

// The Customers and Integrations pages in a real browser: records made by
// real calls are found, merged, unlinked and erased; an integration shows
// its webhook URL.

describe("customers and integrations in a browser", () => {
  const env = useServerAndBrowser();
  const url = (p: string) => new URL(p, env.server.url).toString();

  it("finds, merges, unlinks and erases a customer made by a real call", async () => {
    const { page } = env.browser;
    await page.goto(url("/dashboard/sign-up"));
    await page.getByLabel("Email").fill("records@example.com");
    await page.getByLabel("Password").fill("a long and unique passphrase");
    await page.getByLabel("Account name").fill("Records Inc");
    await page.getByRole("button", { name: "Sign up" }).click();
    await expect.poll(() => page.getByRole("heading", { name: "Check your email" }).isVisible()).toBe(true);
    await page.goto(await linkIn(logMailbox(env.server), "records@example.com", "/dashboard/verify/"));
    await page.getByRole("button", { name: "Confirm and sign in" }).click();
    const key = await page.getByLabel("Secret key").inputValue();

    const hints = { ani: "+14155550123", external_ids: { crm_id: "42" } };
    const started = await post(env.server.url, "/v1/calls/start", key, { call_id: "rec-1", identity_hints: hints });
    expect(started.status).toBe(200);
    const ref: string = started.body.customer_ref;
    const ended = await post(env.server.url, "/v1/calls/end", key, {
      call_id: "rec-1",
      customer_ref: ref,
      intent: "billing_dispute",
      intent_status: "open",
      variables: { plan: "gold" },
      summary: "Disputed the March charge; a refund review was opened.",
    });
    expect(ended.status).toBe(200);
    const otherHints = { identity_hints: { external_ids: { loyalty: "L-7" } } };
    const other = await post(env.server.url, "/v1/calls/start", key, { call_id: "rec-2", ...otherHints });
    const otherRef: string = other.body.customer_ref;
    await post(env.server.url, "/v1/calls/end", key, {
      call_id: "rec-2",
      customer_ref: otherRef,
      variable_updates: { home_address: { value: "12 Acacia Avenue", requires_verification: true } },
    });
    expect(otherRef).not.toBe(ref);

    // Production data is apart: the test customer is not found there.
    await page.getByRole("link", { name: "Customers" }).click();
    await page.getByRole("link", { name: "Production data" }).click();
    await page.getByLabel("Number, external id or customer_ref").fill("crm_id:42");
    await page.getByRole("button", { name: "Search" }).click();
    expect(await page.locator("main").textContent()).toContain("No customer holds");

    // In test data a number in another spelling finds it.
    await page.getByRole("link", { name: "Test data" }).click();
    await page.getByLabel("Number, external id or customer_ref").fill("(415) 555-0123");
    await page.getByRole("button", { name: "Search" }).click();
    expect(await page.locator("tbody tr").count()).toBe(1);
    await env.browser.screenshot("customers-search");
    await page.getByRole("link", { name: "Open" }).click();
    const main = page.locator("main");
    for (const text of [
      ref,
      "+14155550123",
      "crm_id:42",
      "billing_dispute",
      "gold",
      "rec-1",
      "Disputed the March charge; a refund review was opened.",
      "billing_dispute (open)",
    ]) {
      expect(await main.textContent()).toContain(text);
    }

    // Merge the other record into this one, after reviewing both.
    await page.getByLabel("customer_ref to merge from").fill(otherRef);
    await page.getByRole("button", { name: "Review merge" }).click();
    await env.browser.screenshot("customers-merge-confirm");
    await page.getByRole("button", { name: "Merge" }).click();
    expect(await main.textContent()).toContain("loyalty:L-7");
    // The merged record's variable that only a verified caller hears is marked so.
    expect(await main.getByText("12 Acacia Avenue").textContent()).toContain("Verified callers only");
    await env.browser.screenshot("customers-record");

    // Unlink the number: a search by it finds no one; the record keeps its external ids.
    await page.getByRole("button", { name: "Unlink +14155550123" }).click();
    expect(await main.textContent()).toContain("was unlinked");
    expect(await main.textContent()).not.toContain("+14155550123");
    const byNumber = await post(env.server.url, "/v1/calls/start", key, {
      call_id: "rec-3",
      identity_hints: { ani: "+14155550123" },
    });
    expect(byNumber.body.customer_ref).not.toBe(ref);

    // Erase, after confirming: a search by its external id (or the merged one's ref) finds nothing.
    await page.getByRole("link", { name: "Erase customer…" }).click();
    await env.browser.screenshot("customers-erase-confirm");
    await page.getByRole("button", { name: "Erase" }).click();
    expect(await main.textContent()).toContain("was erased");
    await page.getByLabel("Number, external id or customer_ref").fill("crm_id:42");
    await page.getByRole("button", { name: "Search" }).click();
    expect(await main.textContent()).toContain("No customer holds");
    const gone = await page.goto(url(`/dashboard/customers/${otherRef}?mode=test`));
    expect(gone?.status()).toBe(404);

    // The security log names the customers by ref only: the erased number and ids are not kept there.
    await page.goto(url("/dashboard/account"));
    const log = (await page.locator("table.audit").textContent()) ?? "";
    for (const event of ["Customers merged", "Identifier unlinked", "Customer erased"]) expect(log).toContain(event);
    for (const gone of ["+14155550123", "crm_id", "loyalty"]) expect(log).not.toContain(gone);
  });

  it("creates an integration, shows its webhook URL and secret once, and deletes it", async () => {
    const { page } = env.browser;
    await page.goto(url("/dashboard/integrations"));
    await env.browser.screenshot("integrations-empty");
    await page.getByLabel("Platform").selectOption("retell");
    await page.getByLabel("Name").fill("Support line");
    await page.getByRole("button", { name: "Create integration" }).click();
    expect(await page.locator(".field-error").textContent()).toContain("Required for retell");
    await page.getByLabel("Signing secret").fill("retell-signing-secret");
    await page.getByLabel("Variable fields").fill("plan, order_id");
    await page.getByRole("button", { name: "Create integration" }).click();

    const webhookUrl = await page.getByLabel("Webhook URL").inputValue();
    expect(webhookUrl).toMatch(new RegExp(`^${env.server.url}/v1/integrations/wh_[0-9A-Za-z]{32}$`));
    expect(await page.getByLabel("Webhook secret").inputValue()).toMatch(/^whsec_/);
    expect(await page.locator("td .webhook-url").textContent()).toBe(webhookUrl);
    await env.browser.screenshot("integrations");
    await page.goto(url("/dashboard/integrations"));
    expect(await page.getByLabel("Webhook secret").count()).toBe(0);
    expect(await page.locator("td .webhook-url").textContent()).toBe(webhookUrl);

    await page.getByRole("link", { name: "Delete" }).click();
    await env.browser.screenshot("integrations-delete-confirm");
    await page.getByRole("button", { name: "Delete" }).click();
    expect(await page.locator("main").textContent()).toContain("No integrations yet");
    const refused = await fetch(webhookUrl, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(refused.status).toBe(401);
    await page.goto(url("/dashboard/account"));
    const log = (await page.locator("table.audit").textContent()) ?? "";
    for (const event of ["Integration created", "Integration deleted"]) expect(log).toContain(event);
  });
});
