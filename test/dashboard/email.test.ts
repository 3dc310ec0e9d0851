import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { linkIn, type SmtpInbox, startSmtpInbox } from "../helpers/mailbox.ts";
import { post } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// The dashboard's mail through a real SMTP server (smtp-server on a local
// port, messages read back with mailparser): the address is verified before
// production keys can be made, passwords are reset by single-use links that
// expire, and owners hear of new keys and members.

const PASSWORD = "a long and unique passphrase";
const clock = createManualClock(new Date("2026-11-12T08:00:00Z"));
const secretOf = (html: string) => /id="secret"[^>]*value="(sk_[a-z]+_[0-9A-Za-z]+)"/.exec(html)?.[1] ?? "";
const keyIdOf = (html: string) => /data-key-id="(key_[0-9A-Za-z]+)"/.exec(html)?.[1] ?? "";

describe("dashboard mail", () => {
  let inbox: SmtpInbox;
  let server: TestServer;
  beforeAll(async () => {
    inbox = await startSmtpInbox();
    server = await startTestServer({
      clock,
      env: { SMTP_URL: inbox.url, MAIL_FROM: "Caller Context <security@example.test>", RESET_TTL_MINUTES: "30" },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await inbox?.close();
  });
  const start = (key: string, n: string) =>
    post(server.url, "/v1/calls/start", key, { call_id: `m-${n}`, identity_hints: { external_ids: { crm_id: n } } });
  const signUpUnconfirmed = async (email: string) => {
    const client = createDashboardClient(server.url, { mailbox: inbox });
    await client.get("/dashboard/sign-up");
    const page = await client.submit("/dashboard/sign-up", { email, password: PASSWORD, account_name: "Mail Co" });
    expect(page.redirectedTo).toBe("/dashboard/check-email");
    expect(page.status).toBe(200);
    return client;
  };

  it("mails a confirmation link; production keys wait for it, test keys do not", async () => {
    const client = await signUpUnconfirmed("verify@example.com");
    const link = await linkIn(inbox, "verify@example.com", "/dashboard/verify/");
    const [mail] = await inbox.messagesTo("verify@example.com");
    expect(mail?.subject).toBe("Confirm your email address");
    expect(mail?.from).toContain("security@example.test");

    // Signed in with the password alone: test keys work at once, production keys are refused.
    expect((await client.signIn("verify@example.com", PASSWORD)).location).toBe("/dashboard/keys");
    await client.get("/dashboard/keys");
    const refused = await client.submit("/dashboard/keys", { name: "Live", kind: "prod" });
    expect(refused.status).toBe(403);
    expect(refused.html).toContain("Confirm your email address first");
    const testKey = secretOf((await client.submit("/dashboard/keys", { name: "Try", kind: "test" })).html);
    expect(testKey).toMatch(/^sk_test_/);
    expect((await start(testKey, "before-verify")).status).toBe(200);
    await client.get("/dashboard/integrations");
    const integration = await client.submit("/dashboard/integrations", { platform: "vapi", name: "P", kind: "prod" });
    expect(integration.status).toBe(403);

    // Opening the link only asks; confirming spends it.
    const confirmed = await client.confirm(link);
    expect(confirmed.redirectedTo).toBe("/dashboard/keys");
    await client.get("/dashboard/keys");
    const prodKey = secretOf((await client.submit("/dashboard/keys", { name: "Live", kind: "prod" })).html);
    expect(prodKey).toMatch(/^sk_prod_/);
    expect((await start(prodKey, "after-verify")).status).toBe(200);
    expect((await createDashboardClient(server.url).get(new URL(link).pathname)).status).toBe(404);
  });

  it("resets a password with a single-use link that expires, ending every session", async () => {
    const owner = createDashboardClient(server.url, { mailbox: inbox });
    await owner.signUp("reset@example.com", PASSWORD, "Reset Co");
    expect((await owner.get("/dashboard/keys")).status).toBe(200);

    const asker = createDashboardClient(server.url);
    await asker.get("/dashboard/forgot-password");
    const asked = await asker.submit("/dashboard/forgot-password", { email: "Reset@Example.com" });
    const unknown = await asker.submit("/dashboard/forgot-password", { email: "nobody@example.com" });
    expect([asked.redirectedTo, unknown.redirectedTo]).toEqual([
      "/dashboard/forgot-password",
      "/dashboard/forgot-password",
    ]);
    expect([asked.status, unknown.status]).toEqual([200, 200]);
    const same = (html: string, email: string) => html.replaceAll(email, "X").replace(/value="[^"]*"/g, "");
    expect(same(unknown.html, "nobody@example.com")).toBe(same(asked.html, "Reset@Example.com"));
    const link = new URL(await linkIn(inbox, "reset@example.com", "/dashboard/reset-password/")).pathname;

    const resetter = createDashboardClient(server.url);
    expect((await resetter.get(link)).status).toBe(200);
    // A weak password is refused and leaves the link usable.
    const weak = await resetter.submit(link, { password: "password12" });
    expect(weak.status).toBe(400);
    expect(weak.html).toContain("too easy to guess");
    const done = await resetter.submit(link, { password: "another fresh passphrase 42" });
    expect(done.redirectedTo).toBe("/dashboard/sign-in");
    expect(done.status).toBe(200);
    expect(done.html).toContain("Password changed");
    expect((await owner.get("/dashboard/keys")).location).toBe("/dashboard/sign-in");
    expect((await resetter.submit(link, { password: "and yet another passphrase" })).status).toBe(404);
    expect((await resetter.signIn("reset@example.com", PASSWORD)).status).toBe(401);
    expect((await resetter.signIn("reset@example.com", "another fresh passphrase 42")).status).toBe(303);

    // A link past RESET_TTL_MINUTES no longer works.
    const before = (await inbox.messagesTo("reset@example.com")).length;
    await asker.get("/dashboard/forgot-password");
    await asker.submit("/dashboard/forgot-password", { email: "reset@example.com" });
    const late = new URL(await linkIn(inbox, "reset@example.com", "/dashboard/reset-password/", before)).pathname;
    clock.advance(31 * 60_000);
    const lateComer = createDashboardClient(server.url);
    expect((await lateComer.get(late)).status).toBe(404);
    await lateComer.get("/dashboard/forgot-password");
    expect((await lateComer.submit(late, { password: "too late a passphrase 7" })).status).toBe(404);
  });

  it("tells the owner of a new key and of a member who joined", async () => {
    const owner = createDashboardClient(server.url, { mailbox: inbox });
    await owner.signUp("notified@example.com", PASSWORD, "Notice Co");
    await owner.get("/dashboard/keys");
    const made = await owner.submit("/dashboard/keys", { name: "Dialer", kind: "prod" });
    const keyId = keyIdOf(made.html);
    const keyMail = await waitForSubject("notified@example.com", "A new API key was created on your account");
    expect(keyMail.text).toContain(keyId);
    expect(keyMail.text).not.toContain(secretOf(made.html));

    await owner.get("/dashboard/account");
    const invite = /id="invite-link"[^>]*value="([^"]+)"/.exec(
      (await owner.submit("/dashboard/account/invites", {})).html,
    );
    const member = createDashboardClient(server.url, { mailbox: inbox });
    await member.get(new URL(invite![1]!).pathname);
    const invitePath = new URL(invite![1]!).pathname.split("/").pop()!;
    expect(
      (
        await member.submit("/dashboard/sign-up", {
          email: "joiner@example.com",
          password: PASSWORD,
          invite: invitePath,
        })
      ).status,
    ).toBe(200);
    const joined = await waitForSubject("notified@example.com", "A member joined your account");
    expect(joined.text).toContain("joiner@example.com");
  });

  const waitForSubject = async (to: string, subject: string) => {
    for (let tries = 0; tries < 200; tries++) {
      const found = (await inbox.messagesTo(to)).find((m) => m.subject === subject);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no mail "${subject}" to ${to}`);
  };
});
