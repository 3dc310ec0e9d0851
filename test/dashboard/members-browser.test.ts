import { describe, expect, it } from "vitest";
import { useServerAndBrowser } from "../helpers/browser.ts";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { linkIn, logMailbox } from "../helpers/mailbox.ts";

// The Members page and the password reset in a real browser: the owner sees
// the team and an open invitation, removes a member and revokes the link; a
// forgotten password is reset through the mailed link.

const PASSWORD = "a long and unique passphrase";

describe("members and password reset in a browser", () => {
  const env = useServerAndBrowser();
  const url = (p: string) => new URL(p, env.server.url).toString();
  const mailbox = () => logMailbox(env.server);

  it("lets the owner remove a member and revoke an invitation", async () => {
    const { page } = env.browser;
    const owner = createDashboardClient(env.server.url, { mailbox: mailbox() });
    await owner.signUp("lead@example.com", PASSWORD, "Team Browser Co");
    await owner.get("/dashboard/account");
    const invite = /id="invite-link"[^>]*value="([^"]+)"/.exec(
      (await owner.submit("/dashboard/account/invites", {})).html,
    )!;
    const member = createDashboardClient(env.server.url, { mailbox: mailbox() });
    await member.get(new URL(invite[1]!).pathname);
    await member.submit("/dashboard/sign-up", {
      email: "agent@example.com",
      password: PASSWORD,
      invite: invite[1]!.split("/").pop()!,
    });
    await member.confirm(await linkIn(mailbox(), "agent@example.com", "/dashboard/verify/"));
    await owner.submit("/dashboard/account/invites", {});

    await page.goto(url("/dashboard/sign-in"));
    await page.getByLabel("Email").fill("lead@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "Members" }).click();
    expect(await page.locator("table.members").textContent()).toContain("agent@example.com");
    expect(await page.locator("table.invitations tbody tr").count()).toBe(1);
    await env.browser.screenshot("members");

    await page.getByRole("button", { name: "Remove agent@example.com" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Member removed");
    expect(await page.locator("table.members").textContent()).not.toContain("agent@example.com");
    expect((await member.get("/dashboard/keys")).location).toBe("/dashboard/sign-in");
    await page.getByRole("button", { name: "Revoke" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Invitation revoked");
    expect(await page.locator("table.invitations").count()).toBe(0);
    await env.browser.screenshot("members-after");
    await page.getByRole("button", { name: "Sign out" }).click();
  });

  it("resets a forgotten password through the mailed link", async () => {
    const { page } = env.browser;
    await createDashboardClient(env.server.url, { mailbox: mailbox() }).signUp(
      "forgetful@example.com",
      PASSWORD,
      "F Co",
    );
    await page.goto(url("/dashboard/sign-in"));
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByLabel("Email").fill("forgetful@example.com");
    await page.getByRole("button", { name: "Send the link" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("a link to reset its password");
    await env.browser.screenshot("forgot-password");
    await page.goto(await linkIn(mailbox(), "forgetful@example.com", "/dashboard/reset-password/"));
    await page.getByLabel("New password").fill("qwertyuiop");
    await page.getByRole("button", { name: "Save the new password" }).click();
    await expect.poll(() => page.locator(".field-error").textContent()).toContain("too easy to guess");
    await env.browser.screenshot("reset-password-weak");
    await page.getByLabel("New password").fill("a brand new passphrase 77");
    await page.getByRole("button", { name: "Save the new password" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Password changed");
    await page.getByLabel("Email").fill("forgetful@example.com");
    await page.getByLabel("Password").fill("a brand new passphrase 77");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.url()).toBe(url("/dashboard/keys"));
  });
});
