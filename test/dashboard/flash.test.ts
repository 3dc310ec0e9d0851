import { describe, expect, it } from "vitest";
import { setFlash, takeFlash } from "../../src/dashboard/flash.ts";
import { createSecretBox } from "../../src/secrets/secret-box.ts";

// What a form leaves for the page after its redirect is read once, by the
// person who posted, within five minutes, and only if the service sealed it.

const secrets = createSecretBox(Buffer.alloc(32, 7));
const now = new Date("2026-11-20T10:00:00Z");
const later = (ms: number) => new Date(now.getTime() + ms);

/** The cookie a form's answer sets, and a request of the next page carrying it. */
function leave(userId: string) {
  let value = "";
  const reply = {
    setCookie: (_name: string, v: string) => {
      value = v;
    },
  };
  setFlash({ protocol: "http" } as never, reply as never, secrets, now, userId, { notice: "Role changed." });
  return value;
}
function take(cookie: string | undefined, userId: string | undefined, at = now) {
  const cleared: string[] = [];
  const request = { protocol: "http", cookies: { cc_flash: cookie }, dashboardUser: userId && { id: userId } };
  const reply = { clearCookie: (name: string) => void cleared.push(name) };
  return { flash: takeFlash(request as never, reply as never, secrets, at), cleared };
}

describe("dashboard flash", () => {
  it("gives the person who posted what the form left, and clears it", () => {
    const { flash, cleared } = take(leave("usr_1"), "usr_1");
    expect(flash.notice).toBe("Role changed.");
    expect(cleared).toEqual(["cc_flash"]);
  });

  it("shows nothing to another person, after five minutes, or for a value the service did not seal", () => {
    expect(take(leave("usr_1"), "usr_2").flash).toEqual({});
    expect(take(leave("usr_1"), undefined).flash).toEqual({});
    expect(take(leave("usr_1"), "usr_1", later(5 * 60_000 + 1)).flash).toEqual({});
    expect(
      take(JSON.stringify({ user: "usr_1", until: Date.now() * 2, flash: { notice: "x" } }), "usr_1").flash,
    ).toEqual({});
    expect(take(`${leave("usr_1").slice(0, -4)}AAAA`, "usr_1").flash).toEqual({});
  });

  it("keeps the value unreadable in the browser", () => {
    expect(leave("usr_1")).not.toContain("Role changed");
  });
});
