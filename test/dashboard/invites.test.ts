import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { linkIn, logMailbox } from "../helpers/mailbox.ts";
import { post } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../helpers/test-server.ts";

// SIGNUP=invite: the operator's sign-up links (made with the CLI) and an
// owner's links to join the account are single-use and expire.

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;
const PASSWORD = "invited person's password";
const clock = createManualClock(new Date("2026-11-10T09:00:00Z"));

describe("dashboard invitations", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock, env: { SIGNUP: "invite", INVITE_TTL_HOURS: "2" } });
  });
  afterAll(() => server?.stop());

  const inviteLinkOf = (html: string) => {
    const url = /id="invite-link"[^>]*value="([^"]+)"/.exec(html)?.[1];
    if (url === undefined) throw new Error("no invitation link on the page");
    return new URL(url).pathname;
  };
  const signUpWith = async (path: string, email: string, accountName = "") => {
    const client = createDashboardClient(server.url, { mailbox: logMailbox(server) });
    const form = await client.get(path);
    if (form.status !== 200) return { client, page: form };
    const invite = /name="invite" value="([^"]*)"/.exec(form.html)?.[1] ?? "";
    const mailbox = logMailbox(server);
    const before = (await mailbox.messagesTo(email)).length;
    const sent = await client.submit("/dashboard/sign-up", {
      email,
      password: PASSWORD,
      account_name: accountName,
      invite,
    });
    if (sent.status !== 200) return { client, page: sent };
    // The account is made; the mailed link confirms the address and signs in.
    const page = await client.confirm(await linkIn(mailbox, email, "/dashboard/verify/", before));
    return { client, page };
  };

  it("refuses open sign-up, and signs up once with a link from `caller-context accounts invite`", async () => {
    const stranger = createDashboardClient(server.url, { mailbox: logMailbox(server) });
    expect((await stranger.get("/dashboard/sign-up")).status).toBe(403);
    await stranger.get("/dashboard/sign-in");
    const refused = await stranger.submit("/dashboard/sign-up", {
      email: "stranger@example.com",
      password: PASSWORD,
      account_name: "Stranger",
    });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain("Sign-up needs an invitation link");

    const { stdout } = await promisify(execFile)(process.execPath, [MAIN, "accounts", "invite", "--json"], {
      env: { ...process.env, CALLER_CONTEXT_URL: server.url, ADMIN_TOKEN },
    });
    const { url } = JSON.parse(stdout);
    const path = new URL(url).pathname;
    expect(path).toMatch(/^\/dashboard\/invite\/[\w-]{20,}$/);
    // The link's token is a one-time secret: the access log names the route, not the token.
    await createDashboardClient(server.url, { mailbox: logMailbox(server) }).get(path);
    expect(server.logLines.join("\n")).not.toContain(path.split("/").pop());

    const first = await signUpWith(path, "invited@example.com", "Invited Co");
    expect(first.page.status).toBe(200);
    expect(first.page.html).toMatch(/value="sk_test_/);
    const again = await signUpWith(path, "second@example.com", "Second Co");
    expect(again.page.status).toBe(404);
    expect(again.page.html).toContain("used or has expired");
  });

  it("lets an owner invite a member once; the link expires", async () => {
    const admin = await post(server.url, "/admin/v1/invites", ADMIN_TOKEN, {});
    const owner = await signUpWith(admin.body.path, "owner@example.com", "Owner Co");
    expect(owner.page.status).toBe(200);

    await owner.client.get("/dashboard/account");
    const link = inviteLinkOf((await owner.client.submit("/dashboard/account/invites", {})).html);
    const member = await signUpWith(link, "member@example.com");
    expect(member.page.redirectedTo).toBe("/dashboard/keys");
    const account = await member.client.get("/dashboard/account");
    expect(account.html).toContain("Owner Co");
    expect(account.html).toMatch(/member@example\.com · <span class="cap">member<\/span>/);
    // The member joined the owner's account: no account of their own, no key of their own.
    expect((await signUpWith(link, "late@example.com")).page.status).toBe(404);

    const expiring = inviteLinkOf((await owner.client.submit("/dashboard/account/invites", {})).html);
    clock.advance(2 * 3_600_000 + 1000);
    expect((await signUpWith(expiring, "too-late@example.com")).page.status).toBe(404);
    // Two hours on, the owner's session has passed its idle timeout.
    expect((await owner.client.get("/dashboard/account")).location).toBe("/dashboard/sign-in");
    await owner.client.signIn("owner@example.com", PASSWORD);
    const log = (await owner.client.get("/dashboard/account")).html;
    expect(log).toContain("Member invited");
    expect(log).toContain("Member joined");
  });
});
