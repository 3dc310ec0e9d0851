import { describe, expect, it } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { RECENT_REQUESTS_SHOWN } from "../../src/dashboard/recent-requests.ts";
import { createManualClock } from "../../src/domain/clock.ts";
import { sweepOnce } from "../../src/jobs/sweeper.ts";
import { createRequestLog } from "../../src/request-log/request-log.ts";
import { insertRequestLog } from "../../src/store/request-log-repository.ts";
import { createDashboardClient } from "../helpers/dashboard-client.ts";
import { callUnary, createGrpcClient } from "../helpers/grpc-client.ts";
import { logMailbox } from "../helpers/mailbox.ts";
import { post } from "../helpers/rest-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// The Requests page and the usage per key: what an account's keys asked,
// over every protocol, kept 7 days, shown to that account only, and never a
// secret or a body.

const clock = createManualClock(new Date("2026-11-20T10:00:00Z"));
const keyIdOf = (html: string) => /data-key-id="(key_[0-9A-Za-z]+)"/.exec(html)?.[1] ?? "";

describe("dashboard requests page", () => {
  const fixture = useTestServer({ clock });
  const signUp = async (email: string) => {
    const client = createDashboardClient(fixture.server.url, { mailbox: logMailbox(fixture.server) });
    const testKey = await client.signUp(email, "a password of some length", "Requests Co");
    return { client, testKey };
  };
  const countRows = async () => {
    const { db } = fixture.server.context.database;
    const row = await db.selectFrom("request_log").select(db.fn.countAll<string>().as("n")).executeTakeFirstOrThrow();
    return Number(row.n);
  };

  it("lists the account's REST, Connect and gRPC requests with key, route, status, latency and request id", async () => {
    const { client, testKey } = await signUp("watcher@example.com");
    const { client: other } = await signUp("neighbour@example.com");
    const body = { call_id: "req-1", identity_hints: { external_ids: { crm_id: "secret-crm-42" } } };
    const { url } = fixture.server;
    expect((await post(url, "/v1/calls/start", testKey, body, { "x-request-id": "req-rest-first" })).status).toBe(200);
    expect((await post(url, "/v1/calls/start", testKey, body, { "x-request-id": "req-rest-again" })).status).toBe(409);
    const connect = await fetch(`${url}/callercontext.v1.CallerContextService/StartCall`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${testKey}`,
        "x-request-id": "req-connect",
      },
      body: JSON.stringify({ callId: "req-2", identityHints: { ani: "+14155550123" } }),
    });
    expect(connect.status).toBe(200);
    const grpc = createGrpcClient(url);
    const started = await callUnary(
      grpc,
      CallerContextService.method.startCall,
      { callId: "req-3", identityHints: { ani: "+14155550124" } },
      { authorization: `Bearer ${testKey}`, "x-request-id": "req-grpc" },
    );
    grpc.close();
    expect(started.error).toBeUndefined();
    await post(url, "/v1/calls/start", `${testKey.slice(0, -4)}xxxx`, body, { "x-request-id": "req-bad-key" });

    const page = await client.get("/dashboard/requests");
    expect(page.status).toBe(200);
    const rows = page.html.match(/<tr>\s*<td data-label="Time"/g) ?? [];
    expect(rows).toHaveLength(4);
    expect(page.html).toContain("POST /v1/calls/start");
    expect(page.html).toContain("CallerContextService/StartCall");
    expect(page.html).toMatch(/class="code client">409</);
    expect(page.html).toMatch(/class="code ok">OK</);
    expect(page.html).toMatch(/\d+(\.\d)? ms/);
    for (const id of ["req-rest-first", "req-rest-again", "req-connect", "req-grpc"]) expect(page.html).toContain(id);
    // A key nobody recognised names no account: it is not shown to anyone.
    expect(page.html).not.toContain("req-bad-key");
    expect(page.html).toContain(`${testKey.slice(0, 12)}…`);
    expect(page.html).not.toContain(testKey);
    expect(page.html).not.toContain("secret-crm-42");
    expect((await other.get("/dashboard/requests")).html).not.toContain("req-rest-first");
  });

  it(`shows at most the latest ${RECENT_REQUESTS_SHOWN} requests, newest first`, async () => {
    const { client, testKey } = await signUp("busy@example.com");
    const { db } = fixture.server.context.database;
    const { id: keyId } = await db
      .selectFrom("api_keys")
      .select("id")
      .where("prefix", "=", testKey.slice(0, 12))
      .executeTakeFirstOrThrow();
    // Written through the store, a second apart, so the page's ordering and cap are all that is tested.
    const extra = 5;
    const entries = Array.from({ length: RECENT_REQUESTS_SHOWN + extra }, (_, n) => ({
      keyId,
      at: new Date(clock.now().getTime() - 3_600_000 + n * 1000),
      protocol: "rest",
      route: "POST /v1/calls/start",
      status: 200,
      latencyMs: 1,
      requestId: `cap-${String(n).padStart(4, "0")}`,
    }));
    await insertRequestLog(db, entries);

    const page = await client.get("/dashboard/requests");
    const shown = [...page.html.matchAll(/>(cap-\d{4})</g)].map((match) => match[1]);
    const newestFirst = entries.map((entry) => entry.requestId).reverse();
    expect(shown).toEqual(newestFirst.slice(0, RECENT_REQUESTS_SHOWN));
    expect(page.html).toContain("The latest 1,000 API requests");
  });

  it("shows billed calls per key for this month on the usage page", async () => {
    const { client, testKey } = await signUp("per-key@example.com");
    const { url } = fixture.server;
    for (const n of ["a", "b", "c"]) {
      await post(url, "/v1/calls/start", testKey, { call_id: `pk-${n}`, identity_hints: { ani: "+14155550125" } });
    }
    const usage = (await client.get("/dashboard/usage")).html;
    const keyId = keyIdOf((await client.get("/dashboard/keys")).html);
    expect(usage).toMatch(
      new RegExp(`data-key-id="${keyId}">.*Default test key.*<td data-label="Billed calls" class="num">3</td>`),
    );
  });

  it("keeps requests for 7 days: the retention sweep removes older ones", async () => {
    await signUp("old-requests@example.com").then(({ testKey }) =>
      post(fixture.server.url, "/v1/calls/start", testKey, {
        call_id: "old-1",
        identity_hints: { ani: "+14155550126" },
      }),
    );
    await fixture.server.context.requestLog.flush();
    const before = await countRows();
    expect(before).toBeGreaterThan(0);
    const { db } = fixture.server.context.database;
    // The server's own sweeper may hold the sweep's lock at that moment: a pass that did not run is tried again.
    const sweepAt = async (at: Date) => {
      for (let attempt = 0; attempt < 50; attempt++) {
        const swept = await sweepOnce(db, at, 10_000, fixture.server.config.monthlyQuota);
        if (swept !== undefined) return swept;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error("the sweep's lock stayed taken");
    };
    expect((await sweepAt(new Date(clock.now().getTime() + 6 * 86_400_000))).requests).toBe(0);
    expect(await countRows()).toBe(before);
    expect((await sweepAt(new Date(clock.now().getTime() + 7 * 86_400_000 + 1000))).requests).toBe(before);
    expect(await countRows()).toBe(0);
  });

  it("writes every recorded request when the log closes, as the server's graceful close does", async () => {
    const { testKey } = await signUp("closing@example.com");
    const keyId = (
      await fixture.server.context.database.db
        .selectFrom("api_keys")
        .select("id")
        .where("prefix", "=", testKey.slice(0, 12))
        .executeTakeFirstOrThrow()
    ).id;
    const log = createRequestLog(fixture.server.context.database.db, { intervalMs: 3_600_000, onError: () => {} });
    const entry = { keyId, at: clock.now(), protocol: "rest", route: "POST /v1/calls/end", status: 200, latencyMs: 1 };
    for (let i = 0; i < 3; i++) log.record({ ...entry, requestId: `on-close-${i}` });
    await log.close();
    const { db } = fixture.server.context.database;
    const rows = await db
      .selectFrom("request_log")
      .select("request_id")
      .where("request_id", "like", "on-close-%")
      .execute();
    expect(rows).toHaveLength(3);
  });
});
