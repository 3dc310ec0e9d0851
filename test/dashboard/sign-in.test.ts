import { describe, expect, it } from "vitest";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { logMailbox } from "../helpers/mailbox.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// Sign-in without a browser: throttling, sessions ended everywhere, and the
// password kept out of the logs and the database.

const PASSWORD = "Tr0ub4dor-&-unique-9f3c";

describe("dashboard sign-in", () => {
  // TRUST_PROXY: the lockout test speaks from two client addresses through X-Forwarded-For.
  const fixture = useTestServer({ env: { SIGNIN_ATTEMPTS_PER_MINUTE: "3", TRUST_PROXY: "true" } });

  it("answers 429 with Retry-After once an email passes its allowance, even with the right password", async () => {
    const owner = createDashboardClient(fixture.server.url, { mailbox: logMailbox(fixture.server) });
    await owner.signUp("throttled@example.com", PASSWORD, "Throttled Co");
    const guesser = createDashboardClient(fixture.server.url, { mailbox: logMailbox(fixture.server) });
    for (let i = 0; i < 3; i++) {
      expect((await guesser.signIn("throttled@example.com", `wrong-${i}-password`)).status).toBe(401);
    }
    const refused = await guesser.signIn("Throttled@Example.com", PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.html).toContain("Too many sign-in attempts");
    expect(guesser.cookies.has("cc_session")).toBe(false);
  });

  it("never writes the password to the log or, in clear, to the database", async () => {
    const client = createDashboardClient(fixture.server.url, { mailbox: logMailbox(fixture.server) });
    await client.signUp("clear@example.com", PASSWORD, "Clear Co");
    // A later (throttled-free) sign-in with a wrong password must not leak the attempt either.
    await createDashboardClient(fixture.server.url, { mailbox: logMailbox(fixture.server) }).signIn(
      "clear@example.com",
      `${PASSWORD}-typo`,
    );
    const { db } = fixture.server.context.database;
    const tables = ["users", "sessions", "audit_events", "invites", "accounts", "api_keys"] as const;
    for (const table of tables) {
      const rows = await db.selectFrom(table).selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain(PASSWORD);
    }
    const user = await db
      .selectFrom("users")
      .selectAll()
      .where("email", "=", "clear@example.com")
      .executeTakeFirstOrThrow();
    expect(user.password_hash).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect(fixture.server.logLines.join("\n")).not.toContain(PASSWORD);
    expect(fixture.server.logLines.join("\n")).not.toContain("Tr0ub4dor");
  });

  it("ends every session of the person with sign-out-everywhere", async () => {
    const laptop = createDashboardClient(fixture.server.url, { mailbox: logMailbox(fixture.server) });
    await laptop.signUp("everywhere@example.com", PASSWORD, "Everywhere Co");
    const phone = createDashboardClient(fixture.server.url, { mailbox: logMailbox(fixture.server) });
    expect((await phone.signIn("everywhere@example.com", PASSWORD)).location).toBe("/dashboard/keys");
    expect((await phone.get("/dashboard/keys")).status).toBe(200);

    await laptop.get("/dashboard/account");
    const out = await laptop.post("/dashboard/account/sign-out-everywhere", {});
    expect(out.location).toBe("/dashboard/sign-in");
    for (const client of [laptop, phone]) {
      const page = await client.get("/dashboard/keys");
      expect(page.status).toBe(303);
      expect(page.location).toBe("/dashboard/sign-in");
    }
    const { db } = fixture.server.context.database;
    const user = await db
      .selectFrom("users")
      .select("id")
      .where("email", "=", "everywhere@example.com")
      .executeTakeFirstOrThrow();
    expect(await db.selectFrom("sessions").selectAll().where("user_id", "=", user.id).execute()).toEqual([]);
  });

  it("answers a second sign-up with the same email as a new one, mails the owner and keeps the first account", async () => {
    const mailbox = logMailbox(fixture.server);
    const first = createDashboardClient(fixture.server.url, { mailbox });
    await first.signUp("Twice@Example.com", PASSWORD, "First");
    const second = createDashboardClient(fixture.server.url, { mailbox });
    await second.get("/dashboard/sign-up");
    const page = await second.submit("/dashboard/sign-up", {
      email: "twice@example.com",
      password: PASSWORD,
      account_name: "Second",
    });
    expect(page.redirectedTo).toBe("/dashboard/check-email");
    expect(page.status).toBe(200);
    expect(page.html).toContain("Check your email");
    expect(page.html).not.toContain("already");
    const mails = await mailbox.messagesTo("twice@example.com");
    expect(mails.at(-1)?.subject).toBe("Someone tried to sign up with your email address");
    const { db } = fixture.server.context.database;
    expect(await db.selectFrom("accounts").select("name").where("name", "=", "Second").execute()).toEqual([]);
  });

  it("counts failures per email and address pair: a guesser elsewhere does not lock the owner out", async () => {
    await createDashboardClient(fixture.server.url, { mailbox: logMailbox(fixture.server) }).signUp(
      "victim@example.com",
      PASSWORD,
      "Victim Co",
    );
    const attacker = createDashboardClient(fixture.server.url, { headers: { "x-forwarded-for": "203.0.113.7" } });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await attacker.signIn("victim@example.com", `wrong-${i}-guess`)).status);
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.slice(3)).toEqual(Array(8).fill(429));
    const owner = createDashboardClient(fixture.server.url, { headers: { "x-forwarded-for": "198.51.100.20" } });
    const signedIn = await owner.signIn("victim@example.com", PASSWORD);
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe("/dashboard/keys");
  });

  // Last: it spends this address's allowance for the rest of the file.
  it("answers 429 once one address passes its allowance, whatever the emails", async () => {
    const guesser = createDashboardClient(fixture.server.url, { mailbox: logMailbox(fixture.server) });
    let status = 0;
    let attempts = 0;
    while (status !== 429 && attempts < 20) {
      status = (await guesser.signIn(`nobody-${attempts++}@example.com`, "wrong-password-x")).status;
    }
    expect(status).toBe(429);
    // 3 per email × 5 per address, minus what the earlier tests of this file spent.
    expect(attempts).toBeLessThanOrEqual(15);
  });
});
