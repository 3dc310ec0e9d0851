import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useServerAndBrowser } from "../helpers/browser.ts";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { logMailbox } from "../helpers/mailbox.ts";

// The Events tab in a real browser: an endpoint made with one type left out,
// its secret shown once with the copy button, a test event delivered and
// redelivered on the deliveries page, and an endpoint the worker disabled
// after failing, with its notice and the Enable button.

const PASSWORD = "a long and unique passphrase";

describe("events in a browser", () => {
  const env = useServerAndBrowser({
    // Retries milliseconds apart, and an endpoint disabled after two failures in a row at once.
    env: {
      EVENTS_POLL_MS: "20",
      EVENTS_RETRY_DELAYS_MS: "10,10,10",
      EVENTS_DISABLE_AFTER_FAILURES: "2",
      EVENTS_DISABLE_AFTER_MS: "0",
    },
  });
  const url = (p: string) => new URL(p, env.server.url).toString();
  let receiver: EventReceiver;
  let failing: EventReceiver;
  beforeAll(async () => {
    [receiver, failing] = await Promise.all([startEventReceiver(), startEventReceiver()]);
    failing.otherwise = "fail";
  });
  afterAll(async () => {
    await Promise.all([receiver.close(), failing.close()]);
  });

  it("creates, tests, redelivers and re-enables endpoints", async () => {
    const { page } = env.browser;
    await createDashboardClient(env.server.url, { mailbox: logMailbox(env.server) }).signUp(
      "events-browser@example.com",
      PASSWORD,
      "Events Browser Co",
    );
    await page.goto(url("/dashboard/sign-in"));
    await page.getByLabel("Email").fill("events-browser@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "Events", exact: true }).click();
    await expect.poll(() => page.url()).toBe(url("/dashboard/events"));

    // The nav holds every tab on one line at desktop width.
    const tabs = page.locator("nav.tabs a");
    const tops = await tabs.evaluateAll((links) => links.map((a) => Math.round(a.getBoundingClientRect().top)));
    expect(new Set(tops).size).toBe(1);
    // ...and the signed-in person and Sign out beside them, not on a second line.
    const [nav, signOut] = await Promise.all([
      page.locator("nav.tabs").boundingBox(),
      page.locator("form.signout").boundingBox(),
    ]);
    expect(signOut!.y).toBeLessThan(nav!.y + nav!.height);
    await env.browser.screenshot("events-empty");

    await page.getByLabel("URL").fill(receiver.url);
    await page.getByRole("checkbox", { name: /credits\.low/ }).uncheck();
    await page.getByRole("button", { name: "Create endpoint" }).click();
    const secret = await page.getByLabel("Signing secret").inputValue();
    expect(secret).toMatch(/^whsec_/);
    receiver.secret = secret;
    await expect.poll(() => page.getByRole("button", { name: "Copy" }).isVisible()).toBe(true);
    expect(await page.locator(".endpoint").first().textContent()).not.toContain("credits.low");
    await env.browser.screenshot("events-created");

    await page.getByLabel("URL").fill(failing.url);
    await page.getByRole("button", { name: "Create endpoint" }).click();
    failing.secret = await page.getByLabel("Signing secret").inputValue();
    const failingEndpoint = page.locator(".endpoint", { hasText: failing.url });
    await failingEndpoint.getByRole("button", { name: "Send test event" }).click();
    await failing.waitFor(2);
    // The second failure is recorded after the receiver answered it: on a busy machine, give the worker time.
    // Each round reloads and reads the alerts present without waiting for one: a page loaded before the
    // worker disabled the endpoint never grows the notice, so waiting on it would outlast the poll.
    await expect
      .poll(
        async () => {
          await page.goto(url("/dashboard/events"));
          return (await failingEndpoint.getByRole("alert").allTextContents()).join(" ");
        },
        { timeout: 10_000 },
      )
      .toContain("Disabled after 2 failed deliveries in a row");
    await env.browser.screenshot("events");

    await page.locator(".endpoint", { hasText: receiver.url }).getByRole("button", { name: "Send test event" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("queued");
    await receiver.waitFor(1);
    await expect
      .poll(async () => {
        await page.reload();
        return page.locator("table.deliveries .delivery-state").allTextContents();
      })
      .toEqual(["delivered"]);
    await page
      .locator("table.deliveries")
      .getByRole("button", { name: /^Redeliver/ })
      .click();
    await receiver.waitFor(2);
    await expect
      .poll(async () => {
        await page.reload();
        return page.locator("table.deliveries .delivery-state").allTextContents();
      })
      .toEqual(["delivered", "delivered"]);
    expect(receiver.received.every((event) => event.verified)).toBe(true);
    await env.browser.screenshot("event-deliveries");

    await page.getByRole("link", { name: "← Events" }).click();
    failing.otherwise = "ok";
    await page.getByRole("button", { name: `Enable ${failing.url}` }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("enabled");
    expect(await page.locator(".endpoint .alert.warning").count()).toBe(0);
  });
});
