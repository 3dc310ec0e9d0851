import { describe, expect, it } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { createDashboardClient, type DashboardClient } from "../helpers/dashboard-client.ts";
import { logMailbox } from "../helpers/mailbox.ts";
import { post } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// Keys and usage without a browser: a rolled key's grace runs out on the
// clock, refused calls are counted by day, and last use is recorded.

const clock = createManualClock(new Date("2026-11-20T10:00:00Z"));
const start = (url: string, key: string, n: string) =>
  post(url, "/v1/calls/start", key, { call_id: `k-${n}`, identity_hints: { external_ids: { crm_id: n } } });
const secretOf = (html: string) => /id="secret"[^>]*value="(sk_[a-z]+_[0-9A-Za-z]+)"/.exec(html)?.[1] ?? "";
const keyIdOf = (html: string, name: string) =>
  new RegExp(`data-key-id="(key_[0-9A-Za-z]+)">\\s*<td data-label="Name"><span class="cell"><strong>${name}<`).exec(
    html,
  )?.[1] ?? "";

describe("dashboard keys and usage", () => {
  const fixture = useTestServer({ clock });
  const signUp = async (email: string): Promise<{ client: DashboardClient; testKey: string }> => {
    const client = createDashboardClient(fixture.server.url, { mailbox: logMailbox(fixture.server) });
    const testKey = await client.signUp(email, "a password of some length", "Keys Co");
    return { client, testKey };
  };

  it("refuses a rolled key's old secret as revoked once the grace has passed", async () => {
    const { client } = await signUp("roller@example.com");
    const created = await client.submit("/dashboard/keys", { name: "Dialer", kind: "prod" });
    const oldSecret = secretOf(created.html);
    const rolled = await client.submit(`/dashboard/keys/${keyIdOf(created.html, "Dialer")}/roll`, { grace: "1h" });
    const newSecret = secretOf(rolled.html);
    expect(newSecret).toMatch(/^sk_prod_/);

    clock.advance(59 * 60_000);
    expect((await start(fixture.server.url, oldSecret, "in-grace")).status).toBe(200);
    clock.advance(2 * 60_000);
    const refused = await start(fixture.server.url, oldSecret, "after-grace");
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe("API key has been revoked");
    expect((await start(fixture.server.url, newSecret, "new")).status).toBe(200);
    // An hour on, the dashboard session has passed its idle timeout: sign in again to look.
    expect((await client.get("/dashboard/keys")).location).toBe("/dashboard/sign-in");
    await client.signIn("roller@example.com", "a password of some length");
    expect((await client.get("/dashboard/keys")).html).toContain("Revoked");
  });

  it("refuses a roll of an unknown grace or another account's key, and changes nothing", async () => {
    const { client } = await signUp("careful@example.com");
    const { client: other } = await signUp("other@example.com");
    const otherKeys = (await other.get("/dashboard/keys")).html;
    const otherKeyId = keyIdOf(otherKeys, "Default test key");
    const page = await client.submit(`/dashboard/keys/${otherKeyId}/roll`, { grace: "1h" });
    expect(page.status).toBe(404);
    const ownKeyId = keyIdOf((await client.get("/dashboard/keys")).html, "Default test key");
    expect((await client.submit(`/dashboard/keys/${ownKeyId}/roll`, { grace: "forever" })).status).toBe(400);
    expect((await other.get("/dashboard/keys")).html.match(/data-key-id=/g)).toHaveLength(1);
    expect((await client.get("/dashboard/keys")).html.match(/data-key-id=/g)).toHaveLength(1);
  });

  it("counts billed calls per mode and the days with quota refusals; records when a key was last used", async () => {
    const { client, testKey } = await signUp("counter@example.com");
    const accountId = /acct_[0-9A-Za-z]{16}/.exec((await client.get("/dashboard/account")).html)?.[0];
    await post(fixture.server.url, `/admin/v1/accounts/${accountId}/quota`, ADMIN_TOKEN, {
      quota_remaining: 2,
    });
    for (const n of ["a", "b", "c"]) await start(fixture.server.url, testKey, `count-${n}`);
    const usage = (await client.get("/dashboard/usage")).html;
    expect(usage).toMatch(/Test <strong>2<\/strong>/);
    expect(usage).toMatch(/Production <strong>0<\/strong>/);
    expect(usage).toMatch(/<td data-label="Quota \(402\)">1<\/td><td data-label="Rate \(429\)">0<\/td>/);
    expect(usage).toContain('class="refused"');
    expect((await client.get("/dashboard/keys")).html).toMatch(
      /<td data-label="Last used" class="nowrap">Nov \d+, \d\d:\d\d UTC/,
    );
  });
});
