import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { countEndedCalls, SETTLE_MS } from "../../src/jobs/contact-figures-job.ts";
import { runCli, runCliJson } from "../helpers/cli-runner.ts";
import { createAccountWithKey, request, startAndEndCall } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// `caller-context analytics` as an operator runs it: a child process asking the real server, printing the
// figures the account's own key reads from GET /v1/analytics/contact-figures.

const clock = createManualClock(new Date("2026-11-02T10:00:00Z"));
let server: TestServer;
let accountId: string;
let apiKey: string;

beforeAll(async () => {
  server = await startTestServer({ clock, env: { CONTACT_FIGURES_INTERVAL_MS: "86400000" } });
  ({ accountId, apiKey } = await createAccountWithKey(server.url, { kind: "test" }));
  const first = await startAndEndCall(
    server.url,
    apiKey,
    { ani: "+14155550140" },
    {
      intent_updates: [{ intent: "billing", status: "resolved" }],
    },
  );
  clock.set(new Date("2026-11-03T10:00:00Z"));
  await startAndEndCall(
    server.url,
    apiKey,
    { ani: "+14155550140" },
    {
      customer_ref: first.customerRef,
      intent_updates: [{ intent: "billing", status: "open" }],
    },
  );
  const now = new Date(clock.now().getTime() + SETTLE_MS + 1);
  while (!(await countEndedCalls(server.context.database.db, now, 1000))?.caughtUp);
});
afterAll(() => server.stop());

describe("analytics", () => {
  test("--json prints the same figures as the account's key reads over the API", async () => {
    const printed = await runCliJson(server.url, [
      "analytics",
      accountId,
      "--from",
      "2026-11-02",
      "--to",
      "2026-11-03",
      "--mode",
      "test",
      "--json",
    ]);
    const read = await request(server.url, "GET", "/v1/analytics/contact-figures?from=2026-11-02&to=2026-11-03", {
      token: apiKey,
    });
    expect(read.status).toBe(200);
    // An absent rate (no denominator) is null in the REST JSON and left out by the CLI's.
    const withoutNulls = JSON.parse(JSON.stringify(read.body, (_key, value) => (value === null ? undefined : value)));
    expect(printed).toEqual(withoutNulls);
    expect(printed.overall).toMatchObject({ calls: 2, repeat_calls: 1, issues_opened: 1, resolved_first_contact: 0 });
  });

  test("the text names the rates and the intents", async () => {
    const result = await runCli(server.url, [
      "analytics",
      accountId,
      "--from",
      "2026-11-02",
      "--to",
      "2026-11-03",
      "--mode",
      "test",
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/first-contact resolution\s+0\.0 % .*of 1 issues/);
    expect(result.stdout).toMatch(/repeat-contact rate\s+50\.0 %/);
    expect(result.stdout).toMatch(/^billing\s+2\s+0\.0 %/m);
  });

  test("the production figures are another mode's: none of the test calls", async () => {
    const printed = await runCliJson(server.url, [
      "analytics",
      accountId,
      "--from",
      "2026-11-02",
      "--to",
      "2026-11-03",
      "--json",
    ]);
    expect(printed.overall.calls).toBe(0);
  });

  test("a wrong mode is the command line's fault (exit 2); a bad day the server's refusal (exit 1)", async () => {
    const mode = await runCli(server.url, [
      "analytics",
      accountId,
      "--from",
      "2026-11-02",
      "--to",
      "2026-11-03",
      "--mode",
      "live",
    ]);
    expect(mode.code).toBe(2);
    const day = await runCli(server.url, ["analytics", accountId, "--from", "2026-11-32", "--to", "2026-11-03"]);
    expect(day.code).toBe(1);
    expect(day.stderr).toMatch(/from/);
  });
});

describe("accounts set-repeat-window", () => {
  test("sets the window the figures report; outside 1..30 is the command line's fault", async () => {
    const set = await runCliJson(server.url, ["accounts", "set-repeat-window", accountId, "14", "--json"]);
    expect(set.repeat_window_days).toBe(14);
    const printed = await runCliJson(server.url, [
      "analytics",
      accountId,
      "--from",
      "2026-11-02",
      "--to",
      "2026-11-03",
      "--json",
    ]);
    expect(printed.repeat_window_days).toBe(14);
    expect((await runCli(server.url, ["accounts", "set-repeat-window", accountId, "31"])).code).toBe(2);
  });
});
