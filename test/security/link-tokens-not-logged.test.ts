import http from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { linkIn, type SmtpInbox, startSmtpInbox } from "../helpers/mailbox.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// Every dashboard link that holds a one-time secret (an address confirmation,
// a password reset, an invitation) is opened and spent as its owner would,
// with the mail going to a real SMTP server; then not one of their tokens may
// appear in any line the service logged, in a label of its metrics, nor in a
// span it exported to an OTLP collector (a local HTTP server keeping the raw bodies).

const PASSWORD = "a long and unique passphrase";
const EMAIL = "owner@tokens.example";
let inbox: SmtpInbox;
let server: TestServer;
let collector: http.Server;
/** Every OTLP/HTTP export the collector received, as sent. */
const exported: string[] = [];

beforeAll(async () => {
  inbox = await startSmtpInbox();
  collector = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      exported.push(body);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const { port } = collector.address() as { port: number };
  server = await startTestServer({
    env: { SMTP_URL: inbox.url, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
  });
});
afterAll(async () => {
  await server?.stop();
  await inbox?.close();
  collector?.close();
});

/** The last path segment of a link: its token. */
const tokenOf = (link: string) => new URL(link).pathname.split("/").pop() ?? "";

describe("the tokens of the dashboard's one-time links", () => {
  test("appear in no log line, metric label or span after a sign-up, a confirmation, a reset and an invitation", async () => {
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
    // The dashboard's pages make no spans of their own today; an API call shows the collector receives what is made.
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    // Closing the server flushes its spans to the collector.
    await server.stop();
    const spans = exported.join("\n");
    expect(spans).toContain("/v1/health");
    for (const token of tokens) {
      expect(logged.includes(token), `token ${token} in the log`).toBe(false);
      expect(metrics.includes(token), `token ${token} in /metrics`).toBe(false);
      expect(spans.includes(token), `token ${token} in a span`).toBe(false);
    }
  });
});
