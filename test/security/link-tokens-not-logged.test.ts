import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { linkIn, type SmtpInbox, startSmtpInbox } from "../helpers/mailbox.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// Every dashboard link that holds a one-time secret (an address confirmation,
// a password reset, an invitation) is opened and spent as its owner would,
// with the mail going to a real SMTP server; then not one of their tokens may
// appear in any line the service logged, nor in a label of its metrics.

const PASSWORD = "a long and unique passphrase";
const EMAIL = "owner@tokens.example";
let inbox: SmtpInbox;
let server: TestServer;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  server = await startTestServer({ env: { SMTP_URL: inbox.url } });
});
afterAll(async () => {
  await server?.stop();
  await inbox?.close();
});

/** The last path segment of a link: its token. */
const tokenOf = (link: string) => new URL(link).pathname.split("/").pop() ?? "";

describe("the tokens of the dashboard's one-time links", () => {
  test("appear in no log line and no metric label after a sign-up, a confirmation, a reset and an invitation", async () => {
    const owner = createDashboardClient(server.url, { mailbox: inbox });
    await owner.get("/dashboard/sign-up");
    const signedUp = await owner.submit("/dashboard/sign-up", { email: EMAIL, password: PASSWORD, account_name: "T" });
    expect(signedUp.redirectedTo).toBe("/dashboard/check-email");
    const confirmation = await linkIn(inbox, EMAIL, "/dashboard/verify/");
    expect((await owner.confirm(confirmation)).redirectedTo).toBe("/dashboard/keys");

    const asker = createDashboardClient(server.url);
    await asker.get("/dashboard/forgot-password");
    await asker.submit("/dashboard/forgot-password", { email: EMAIL });
    const reset = await linkIn(inbox, EMAIL, "/dashboard/reset-password/");
    const resetPath = new URL(reset).pathname;
    expect((await asker.get(resetPath)).status).toBe(200);
    expect((await asker.submit(resetPath, { password: "another fresh passphrase 42" })).redirectedTo).toBe(
      "/dashboard/sign-in",
    );

    const inviter = createDashboardClient(server.url);
    expect((await inviter.signIn(EMAIL, "another fresh passphrase 42")).status).toBe(303);
    await inviter.get("/dashboard/account");
    const invited = await inviter.submit("/dashboard/account/invites", {});
    const invitation = /https?:\/\/[^"<\s]+\/dashboard\/invite\/[\w-]+/.exec(invited.html)?.[0] ?? "";
    expect(invitation).not.toBe("");
    expect((await createDashboardClient(server.url).get(new URL(invitation).pathname)).status).toBe(200);

    const tokens = [confirmation, reset, invitation].map(tokenOf);
    for (const token of tokens) expect(token.length).toBeGreaterThanOrEqual(20);
    const logged = server.logLines.join("\n");
    // The routes were logged, without their tokens.
    for (const route of ["/dashboard/verify/:token", "/dashboard/reset-password/:token", "/dashboard/invite/:token"]) {
      expect(logged).toContain(route);
    }
    const metrics = await (await fetch(`${server.metricsUrl}/metrics`)).text();
    for (const token of tokens) {
      expect(logged.includes(token), `token ${token} in the log`).toBe(false);
      expect(metrics.includes(token), `token ${token} in /metrics`).toBe(false);
    }
  });
});
