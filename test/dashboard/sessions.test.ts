import { describe, expect, it } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { logMailbox } from "../helpers/mailbox.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// Sessions: an idle timeout and an absolute lifetime (defaults 30 minutes and
// 12 hours), a session cookie without Max-Age, the __Host- prefix and Secure
// over TLS, and a CSRF secret bound to the session and replaced at sign-in.

const PASSWORD = "a long and unique passphrase";
const clock = createManualClock(new Date("2026-11-14T06:00:00Z"));
const MINUTE = 60_000;

describe("dashboard sessions", () => {
  const fixture = useTestServer({ clock, env: { TRUST_PROXY: "true" } });
  const client = (headers: Record<string, string> = {}) =>
    createDashboardClient(fixture.server.url, { mailbox: logMailbox(fixture.server), headers });

  it("ends a session idle for 30 minutes; use keeps it alive", async () => {
    const browser = client();
    await browser.signUp("idle@example.com", PASSWORD, "Idle Co");
    clock.advance(25 * MINUTE);
    expect((await browser.get("/dashboard/keys")).status).toBe(200);
    clock.advance(25 * MINUTE);
    expect((await browser.get("/dashboard/keys")).status).toBe(200);
    clock.advance(31 * MINUTE);
    expect((await browser.get("/dashboard/keys")).location).toBe("/dashboard/sign-in");
  });

  it("ends a session 12 hours after sign-in however busy it is", async () => {
    const browser = client();
    await browser.signUp("busy@example.com", PASSWORD, "Busy Co");
    for (let hour = 0; hour < 12 * 4 - 1; hour++) {
      clock.advance(15 * MINUTE);
      expect((await browser.get("/dashboard/keys")).status).toBe(200);
    }
    clock.advance(15 * MINUTE);
    expect((await browser.get("/dashboard/keys")).location).toBe("/dashboard/sign-in");
  });

  it("sets session cookies: no Max-Age; over TLS __Host- prefixed and Secure with Path=/", async () => {
    await client().signUp("cookies@example.com", PASSWORD, "Cookie Co");
    const plain = client();
    await plain.get("/dashboard/sign-in");
    const signedIn = await plain.post("/dashboard/sign-in", { email: "cookies@example.com", password: PASSWORD });
    const session = signedIn.headers.getSetCookie().find((c) => c.startsWith("cc_session="))!;
    expect(session).toBeDefined();
    expect(session).not.toMatch(/Max-Age|Expires/i);
    expect(session).toMatch(/HttpOnly/);

    const tls = client({ "x-forwarded-proto": "https" });
    await tls.get("/dashboard/sign-in");
    const overTls = await tls.post("/dashboard/sign-in", { email: "cookies@example.com", password: PASSWORD });
    const cookies = overTls.headers.getSetCookie();
    const hostCookie = cookies.find((c) => c.startsWith("__Host-cc_session="))!;
    expect(hostCookie).toBeDefined();
    expect(hostCookie).toMatch(/; Secure/);
    expect(hostCookie).toMatch(/; Path=\/(;|$)/);
    expect(hostCookie).not.toMatch(/Domain|Max-Age|Expires/i);
    expect(cookies.some((c) => c.startsWith("cc_session="))).toBe(false);
    expect((await tls.get("/dashboard/keys")).status).toBe(200);
  });

  it("replaces the CSRF secret at sign-in and refuses a form token of another session", async () => {
    await client().signUp("csrf@example.com", PASSWORD, "Csrf Co");
    const browser = client();
    await browser.get("/dashboard/sign-in");
    const before = browser.cookies.get("_csrf");
    const tokenBefore = /name="_csrf" value="([^"]+)"/.exec((await browser.get("/dashboard/sign-in")).html)![1]!;
    await browser.post("/dashboard/sign-in", { email: "csrf@example.com", password: PASSWORD });
    expect(browser.cookies.get("_csrf")).toBeDefined();
    expect(browser.cookies.get("_csrf")).not.toBe(before);
    // A token made before sign-in (as a login-CSRF attacker would plant) is refused afterwards.
    expect((await browser.post("/dashboard/keys", { _csrf: tokenBefore, name: "x", kind: "test" })).status).toBe(403);

    // A secret and token pair valid for another session does not work with this one.
    const other = client();
    await other.signIn("csrf@example.com", PASSWORD);
    const otherToken = /name="_csrf" value="([^"]+)"/.exec((await other.get("/dashboard/keys")).html)![1]!;
    const mine = await browser.get("/dashboard/keys");
    expect(mine.status).toBe(200);
    browser.cookies.set("_csrf", other.cookies.get("_csrf")!);
    expect((await browser.post("/dashboard/keys", { _csrf: otherToken, name: "y", kind: "test" })).status).toBe(403);
  });
});
