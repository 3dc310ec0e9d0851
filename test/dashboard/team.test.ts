import { describe, expect, it } from "vitest";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { linkIn, logMailbox } from "../helpers/mailbox.ts";
import { post } from "../helpers/rest-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// The team: the owner sees and manages the account's people and invitations;
// a removed member's sessions end at once; what cannot be undone (production
// keys, production customers, integrations) needs the owner; the log says who.

const PASSWORD = "a long and unique passphrase";
const secretOf = (html: string) => /id="secret"[^>]*value="(sk_[a-z]+_[0-9A-Za-z]+)"/.exec(html)?.[1] ?? "";
const keyIdOf = (html: string, name: string) =>
  new RegExp(`data-key-id="(key_[0-9A-Za-z]+)">\\s*<td data-label="Name"><span class="cell"><strong>${name}<`).exec(
    html,
  )?.[1] ?? "";
const inviteOf = (html: string) => new URL(/id="invite-link"[^>]*value="([^"]+)"/.exec(html)![1]!).pathname;
const userIdOf = (html: string, email: string) =>
  new RegExp(`${email.replace(".", "\\.")}[\\s\\S]*?/dashboard/members/(usr_[0-9A-Za-z]+)/role`).exec(html)?.[1] ?? "";

describe("dashboard team", () => {
  const fixture = useTestServer();
  const mailbox = () => logMailbox(fixture.server);

  /** An owner with a production key and a member who joined with the owner's link. */
  const team = async (tag: string) => {
    const owner = createDashboardClient(fixture.server.url, { mailbox: mailbox() });
    await owner.signUp(`owner-${tag}@example.com`, PASSWORD, `Team ${tag}`);
    await owner.get("/dashboard/keys");
    const prodKey = secretOf((await owner.submit("/dashboard/keys", { name: "Live", kind: "prod" })).html);
    await owner.get("/dashboard/account");
    const link = inviteOf((await owner.submit("/dashboard/account/invites", {})).html);
    const member = createDashboardClient(fixture.server.url, { mailbox: mailbox() });
    await member.get(link);
    const email = `member-${tag}@example.com`;
    await member.submit("/dashboard/sign-up", { email, password: PASSWORD, invite: link.split("/").pop()! });
    await member.confirm(await linkIn(mailbox(), email, "/dashboard/verify/"));
    return { owner, member, prodKey, memberEmail: email };
  };
  const start = (key: string, n: string) =>
    post(fixture.server.url, "/v1/calls/start", key, {
      call_id: `t-${n}`,
      identity_hints: { external_ids: { crm_id: n } },
    });

  it("lists the members to the owner and ends a removed member's sessions at once", async () => {
    const { owner, member, memberEmail } = await team("remove");
    expect((await member.get("/dashboard/keys")).status).toBe(200);
    const page = await owner.get("/dashboard/members");
    expect(page.status).toBe(200);
    expect(page.html).toContain("owner-remove@example.com");
    expect(page.html).toContain(memberEmail);
    const memberId = userIdOf(page.html, memberEmail);
    expect(memberId).toMatch(/^usr_/);

    const removed = await owner.submit(`/dashboard/members/${memberId}/remove`, {});
    expect(removed.redirectedTo).toBe("/dashboard/members");
    expect(removed.status).toBe(200);
    expect(removed.html).not.toContain(memberEmail);
    expect((await member.get("/dashboard/keys")).location).toBe("/dashboard/sign-in");
    expect((await member.signIn(memberEmail, PASSWORD)).status).toBe(401);
    const log = (await owner.get("/dashboard/account")).html;
    expect(log).toMatch(/Member removed[\s\S]*owner-remove@example\.com/);
  });

  it("keeps members out of the members page and away from what cannot be undone", async () => {
    const { owner, member, prodKey } = await team("limits");
    expect((await member.get("/dashboard/members")).status).toBe(403);
    const ownerKeys = await owner.get("/dashboard/keys");
    const prodKeyId = keyIdOf(ownerKeys.html, "Live");

    await member.get("/dashboard/keys");
    const revoke = await member.post(`/dashboard/keys/${prodKeyId}/revoke`, {});
    expect(revoke.status).toBe(403);
    expect(revoke.html).toContain("Only an owner can revoke a production key");
    expect((await member.post(`/dashboard/keys/${prodKeyId}/roll`, { grace: "now" })).status).toBe(403);
    expect((await start(prodKey, "still-live")).status).toBe(200);

    const customer = (await start(prodKey, "to-keep")).body.customer_ref as string;
    await member.get("/dashboard/customers?mode=prod");
    const erase = await member.post(`/dashboard/customers/${customer}/erase`, { mode: "prod" });
    expect(erase.status).toBe(403);
    expect((await owner.get(`/dashboard/customers/${customer}?mode=prod`)).status).toBe(200);
    expect((await member.post(`/dashboard/customers/${customer}/merge`, { mode: "prod", from: customer })).status).toBe(
      403,
    );

    await owner.get("/dashboard/integrations");
    const made = await owner.submit("/dashboard/integrations", {
      platform: "vapi",
      name: "Line",
      kind: "test",
      assistant_id: "asst_line",
    });
    const integrationId = /\/dashboard\/integrations\/([^/"]+)\/delete/.exec(made.html)![1]!;
    await member.get("/dashboard/integrations");
    expect((await member.post(`/dashboard/integrations/${integrationId}/delete`, {})).status).toBe(403);

    // The owner may, and the log says who did it.
    await owner.get("/dashboard/keys");
    expect((await owner.post(`/dashboard/keys/${prodKeyId}/revoke`, {})).status).toBe(303);
    expect((await start(prodKey, "revoked")).status).toBe(401);
    expect((await owner.get("/dashboard/account")).html).toMatch(/Key revoked[\s\S]*?owner-limits@example\.com/);
  });

  it("changes a role and revokes an open invitation", async () => {
    const { owner, member, memberEmail } = await team("roles");
    const page = await owner.get("/dashboard/members");
    const memberId = userIdOf(page.html, memberEmail);
    const promoted = await owner.submit(`/dashboard/members/${memberId}/role`, { role: "owner" });
    expect(promoted.redirectedTo).toBe("/dashboard/members");
    expect(promoted.status).toBe(200);
    expect((await member.get("/dashboard/members")).status).toBe(200);

    await owner.get("/dashboard/account");
    const link = inviteOf((await owner.submit("/dashboard/account/invites", {})).html);
    const members = await owner.get("/dashboard/members");
    const inviteId = /\/dashboard\/invitations\/([0-9a-f]+)\/revoke/.exec(members.html)![1]!;
    const revoked = await owner.submit(`/dashboard/invitations/${inviteId}/revoke`, {});
    expect(revoked.redirectedTo).toBe("/dashboard/members");
    expect(revoked.status).toBe(200);
    expect((await createDashboardClient(fixture.server.url).get(link)).status).toBe(404);
    expect((await owner.get("/dashboard/account")).html).toMatch(/Invite revoked[\s\S]*?owner-roles@example\.com/);
    // Another account's owner finds neither the person nor the link.
    const stranger = createDashboardClient(fixture.server.url, { mailbox: mailbox() });
    await stranger.signUp("stranger-roles@example.com", PASSWORD, "Elsewhere");
    await stranger.get("/dashboard/members");
    expect((await stranger.post(`/dashboard/members/${memberId}/remove`, {})).status).toBe(404);
  });
});
