import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { countEndedCalls } from "../../src/jobs/contact-figures-job.ts";
import { useServerAndBrowser } from "../helpers/browser.ts";
import { linkIn, logMailbox } from "../helpers/mailbox.ts";

// The Insights page in a real browser, on a month of calls and the days before it: seeded as rows of calls (what 700 ends would have
// written), counted by the real job, read through the page. Sorting is a link and the chart is SVG from the
// server, so none of it needs JavaScript.

const DAY = 24 * 60 * 60 * 1000;
const INTENTS = ["billing", "delivery", "refund", "password_reset"];

/**
 * A deterministic 35 days: 400 callers, 20 calls a day, each intent resolved more or less often. The five days
 * before the 30 shown give the previous period its figures at any hour of the day the test runs.
 */
function seededCalls(now: number) {
  let state = 7;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const calls: { customer: number; start: Date; end: Date; intents: string | null }[] = [];
  for (let day = 34; day >= 0; day--) {
    for (let n = 0; n < 20; n++) {
      const start = now - day * DAY - 2 * 60 * 60 * 1000 - Math.floor(next() * 20 * 60 * 60 * 1000);
      const intent = INTENTS[Math.floor(next() * INTENTS.length)] ?? "billing";
      const resolvedShare = [0.85, 0.6, 0.4, 0.95][INTENTS.indexOf(intent)] ?? 0.5;
      const status = next() < resolvedShare ? "resolved" : "open";
      calls.push({
        customer: Math.floor(next() * 400),
        start: new Date(start),
        end: new Date(start + 4 * 60 * 1000),
        intents: JSON.stringify([{ intent, status }]),
      });
    }
  }
  return calls.sort((a, b) => a.start.getTime() - b.start.getTime());
}

describe("Insights in a browser", () => {
  const env = useServerAndBrowser({ env: { CONTACT_FIGURES_INTERVAL_MS: "86400000" } });
  const url = (p: string) => new URL(p, env.server.url).toString();

  it("shows the rates with their change, the chart, the sortable intents and the CSV", async () => {
    const { page } = env.browser;
    await page.goto(url("/dashboard/sign-up"));
    await page.getByLabel("Email").fill("insights@example.com");
    await page.getByLabel("Password").fill("a long and unique passphrase");
    await page.getByLabel("Account name").fill("Insights Inc");
    await page.getByRole("button", { name: "Sign up" }).click();
    await expect.poll(() => page.getByRole("heading", { name: "Check your email" }).isVisible()).toBe(true);
    await page.goto(await linkIn(logMailbox(env.server), "insights@example.com", "/dashboard/verify/"));
    await page.getByRole("button", { name: "Confirm and sign in" }).click();
    await page.getByRole("link", { name: "Account" }).click();
    const accountId = (await page.locator("dd.mono").first().textContent())?.trim() ?? "";

    // Before any call: the page says there is nothing yet, and still renders.
    await page.goto(url("/dashboard/insights"));
    expect(await page.locator("main").textContent()).toContain("No intent was saved");

    const db = env.server.context.database.db;
    const customers = Array.from({ length: 400 }, () => randomUUID());
    const now = Date.now();
    for (const id of customers) {
      await sql`insert into customers (id, account_id, mode, created_at, last_call_at)
        values (${id}, ${accountId}, 'test', ${new Date(now - 40 * DAY)}, ${new Date(now)})`.execute(db);
    }
    const calls = seededCalls(now);
    await sql`
      insert into calls (account_id, mode, call_id, customer_id, call_start, call_end, intents)
      select ${accountId}, 'test', 'seed-' || n, c, s, e, i::jsonb
      from unnest(${calls.map((c) => customers[c.customer])}::uuid[], ${calls.map((c) => c.start)}::timestamptz[],
        ${calls.map((c) => c.end)}::timestamptz[], ${calls.map((c) => c.intents)}::text[]) with ordinality as u (c, s, e, i, n)
    `.execute(db);
    // What each call's end queues for the contact figures (src/store/calls/record-end.ts).
    await sql`
      insert into contact_figures_queue (account_id, mode, call_id, call_end)
      select account_id, mode, call_id, call_end from calls where account_id = ${accountId}
    `.execute(db);
    while (!(await countEndedCalls(db, new Date(), 1000))?.caughtUp);

    await page.goto(url("/dashboard/insights?mode=test&days=30"));
    const stats = page.locator(".stats");
    expect(await stats.locator('[data-figure="fcr"]').textContent()).toMatch(/^\d+\.\d %$/);
    expect(await stats.locator('[data-figure="repeat"]').textContent()).toMatch(/^\d+\.\d %$/);
    expect(await stats.textContent()).toContain("vs previous 30 days");
    expect(await page.locator("svg.chart.wide rect.first").count()).toBeGreaterThanOrEqual(25);
    expect(await page.locator("svg.chart.wide rect.repeat").count()).toBeGreaterThan(0);
    const intentsInOrder = () =>
      page.locator("table.intents tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-intent")));
    expect((await intentsInOrder()).sort()).toEqual([...INTENTS].sort());
    await env.browser.screenshot("insights");

    // Sorted by FCR, highest first, by following the header's link; again, lowest first.
    await page.locator("table.intents thead").getByRole("link", { name: "FCR", exact: true }).click();
    expect(page.url()).toContain("sort=fcr&dir=desc");
    const fcrs = await page
      .locator('table.intents tbody td[data-label="FCR"]')
      .evaluateAll((cells) => cells.map((c) => Number.parseFloat(c.textContent ?? "")));
    expect(fcrs).toEqual([...fcrs].sort((a, b) => b - a));
    expect((await intentsInOrder())[0]).toBe("password_reset");
    await page.locator("table.intents thead").getByRole("link", { name: /^FCR/ }).click();
    expect(page.url()).toContain("sort=fcr&dir=asc");
    expect((await intentsInOrder())[0]).toBe("refund");
    await env.browser.screenshot("insights-sorted");

    // The CSV link downloads the same figures.
    const csvHref = (await page.getByRole("link", { name: "Download CSV" }).getAttribute("href")) ?? "";
    const csv = await page.request.get(url(csvHref));
    expect(csv.headers()["content-type"]).toContain("text/csv");
    const text = await csv.text();
    expect(text.split("\r\n")[0]).toMatch(/^row,name,calls,/);
    for (const intent of INTENTS) expect(text).toContain(`intent,${intent},`);

    // Production data is apart: none of the test calls.
    await page.getByRole("link", { name: "Production data" }).click();
    expect(await page.locator("main").textContent()).toContain("No intent was saved");

    // The owner sets the repeat window on the Account page: 31 is refused at the field, 3 is taken.
    await page.getByRole("link", { name: "Account" }).click();
    const window = page.getByLabel("Repeat window (days, 1 to 30)");
    expect(await window.inputValue()).toBe("7");
    await window.fill("31");
    const refused = page.waitForResponse((res) => res.url().endsWith("/dashboard/account/repeat-window"));
    await page.locator("#repeat-window").getByRole("button", { name: "Set window" }).click();
    expect((await refused).status()).toBe(400);
    expect(await page.locator("#repeat-window-error").textContent()).toBe("Must be an integer from 1 to 30");
    await window.fill("3");
    await page.locator("#repeat-window").getByRole("button", { name: "Set window" }).click();
    expect(await page.locator("main").textContent()).toContain("within 3 days");
    await env.browser.screenshot("account-repeat-window");
    await page.goto(url("/dashboard/insights"));
    expect(await page.locator(".page-head").textContent()).toContain("within 3 days");
  });
});
