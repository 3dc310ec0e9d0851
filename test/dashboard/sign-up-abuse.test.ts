import { describe, expect, it } from "vitest";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { logMailbox } from "../helpers/mailbox.ts";
import { post } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// Sign-up against abuse: throttled per address and for everyone, the same
// answer and timing for a taken address as for a new one, weak passwords
// refused, and a race that leaves nothing half made.

const PASSWORD = "a long and unique passphrase";

describe("dashboard sign-up under abuse", () => {
  // Addresses come from X-Forwarded-For (TRUST_PROXY); a roomy allowance for the timing test's many sign-ups.
  const fixture = useTestServer({
    env: { TRUST_PROXY: "true", SIGNUP_PER_MINUTE_PER_ADDRESS: "3", SIGNUP_PER_MINUTE: "1000" },
  });
  const from = (address: string) =>
    createDashboardClient(fixture.server.url, {
      mailbox: logMailbox(fixture.server),
      headers: { "x-forwarded-for": address },
    });
  const signUpForm = async (address: string, email: string, password = PASSWORD) => {
    const client = from(address);
    await client.get("/dashboard/sign-up");
    // As a browser sends it: a sign-up's answer is a redirect to "Check your email", followed.
    return client.submit("/dashboard/sign-up", { email, password, account_name: "Abuse Co" });
  };

  it("answers 429 with Retry-After past an address's allowance; another address still signs up", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await signUpForm("203.0.113.50", `burst-${i}@example.com`)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    const refused = await signUpForm("203.0.113.50", "burst-late@example.com");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await signUpForm("203.0.113.51", "elsewhere@example.com")).status).toBe(200);
    const { db } = fixture.server.context.database;
    const made = await db.selectFrom("users").select("email").where("email", "like", "burst-%").execute();
    expect(made).toHaveLength(3);
  });

  it("refuses guessable passwords at sign-up and at a change", async () => {
    for (const weak of ["1234567890", "password12", "qwertyuiop", "aaaaaaaaaa"]) {
      const page = await signUpForm(`198.51.100.${weak.length + weak.charCodeAt(0)}`, `weak-${weak}@example.com`, weak);
      expect(page.status, weak).toBe(400);
      expect(page.html).toContain("too easy to guess");
    }
    const client = from("198.51.100.200");
    await client.signUp("changer@example.com", PASSWORD, "Changer Co");
    await client.get("/dashboard/account");
    const changed = await client.post("/dashboard/account/password", {
      current_password: PASSWORD,
      new_password: "0000000000",
    });
    expect(changed.status).toBe(400);
    expect(changed.html).toContain("too easy to guess");
  });

  it("answers a taken address with the same page and status, in the same time, as a new one", async () => {
    await from("192.0.2.1").signUp("taken@example.com", PASSWORD, "Taken Co");
    const taken: number[] = [];
    const fresh: number[] = [];
    let takenPage = "";
    let freshPage = "";
    // Interleaved, each from an address of its own, so load on the machine falls on both alike.
    for (let i = 0; i < 16; i++) {
      for (const kind of ["taken", "fresh"] as const) {
        const email = kind === "taken" ? "taken@example.com" : `fresh-${i}@example.com`;
        const began = performance.now();
        const page = await signUpForm(`192.0.2.${10 + i * 2 + (kind === "taken" ? 0 : 1)}`, email);
        (kind === "taken" ? taken : fresh).push(performance.now() - began);
        expect(page.redirectedTo).toBe("/dashboard/check-email");
        expect(page.status).toBe(200);
        const normal = page.html.replaceAll(email, "X").replace(/value="[^"]*"/g, "");
        if (kind === "taken") takenPage = normal;
        else freshPage = normal;
      }
    }
    expect(takenPage).toBe(freshPage);
    // The distributions overlap: neither median is far from the other (a refused address answered
    // in ~2 ms against ~240 ms for a new one before: a ratio near 100).
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ratio = median(fresh) / median(taken);
    expect(ratio).toBeGreaterThan(0.6);
    expect(ratio).toBeLessThan(1.6);
    // Each sign-up costs a scrypt hash on purpose: on a busy machine 33 of them take a while.
  }, 180_000);

  it("writes a sign-up in one transaction: a race for one address leaves one account and spends one link", async () => {
    const links = await Promise.all(
      Array.from(
        { length: 4 },
        async () => (await post(fixture.server.url, "/admin/v1/invites", ADMIN_TOKEN, {})).body,
      ),
    );
    const attempts = links.map(async (link: { path: string }, i) => {
      const client = from(`192.0.2.${200 + i}`);
      await client.get(link.path);
      return client.submit("/dashboard/sign-up", {
        email: "raced@example.com",
        password: PASSWORD,
        account_name: `Raced ${i}`,
        invite: link.path.split("/").pop()!,
      });
    });
    const pages = await Promise.all(attempts);
    expect(pages.map((p) => p.status)).toEqual([200, 200, 200, 200]);
    const { db } = fixture.server.context.database;
    const accounts = await db.selectFrom("accounts").select("id").where("name", "like", "Raced %").execute();
    expect(accounts).toHaveLength(1);
    const used = await db.selectFrom("invites").select("token_hash").where("used_at", "is not", null).execute();
    expect(used).toHaveLength(1);
  });
});
