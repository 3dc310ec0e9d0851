import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import type { Db } from "../../src/store/database.ts";
import { createCallClient, forKey, type KeyedCallClient, TRANSPORTS, uniqueCallId } from "../helpers/call-client.ts";
import { createEventEndpoint, listEventDeliveries } from "../helpers/event-endpoints.ts";
import { type EventReceiver, startEventReceiver } from "../helpers/event-receiver.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../helpers/test-server.ts";

// An end is written without its events where no endpoint of the tenant takes them, and with them wherever one
// does, even one created a moment ago (src/calls/end-event-listeners.ts). What each end's statements did is
// counted by triggers this test adds to the server's database, each with a sequence, which a statement undone
// does not take back. Ends: a trigger before each statement that updates calls, counting those whose text
// inserts into the contact figures' queue (an end's; a start's insert on conflict updates calls too). An end's
// statement updates its call first, so one that undoes itself later still counts. Inserts into the outbox: a
// trigger after each statement that holds one, which fires even when the insert writes no row.

const clock = createManualClock(new Date());

interface Counts {
  readonly ends: number;
  readonly outboxInserts: number;
}

async function installCounters(db: Db): Promise<void> {
  await sql`create sequence test_ends`.execute(db);
  await sql`create sequence test_outbox_inserts`.execute(db);
  await sql`create function test_count_ends() returns trigger language plpgsql as $$
    begin
      if current_query() like '%insert into contact_figures_queue%' then perform nextval('test_ends'); end if;
      return null;
    end $$`.execute(db);
  await sql`create function test_count_outbox_inserts() returns trigger language plpgsql as $$
    begin perform nextval('test_outbox_inserts'); return null; end $$`.execute(db);
  await sql`create trigger test_count_ends before update on calls
    for each statement execute function test_count_ends()`.execute(db);
  await sql`create trigger test_count_outbox_inserts after insert on event_deliveries
    for each statement execute function test_count_outbox_inserts()`.execute(db);
}

async function counts(db: Db): Promise<Counts> {
  const { rows } = await sql<{ ends: string; outbox_inserts: string }>`
    select (select case when is_called then last_value else 0 end from test_ends) as ends,
      (select case when is_called then last_value else 0 end from test_outbox_inserts) as outbox_inserts`.execute(db);
  return { ends: Number(rows[0]!.ends), outboxInserts: Number(rows[0]!.outbox_inserts) };
}

describe.each(TRANSPORTS)("an end's events over %s", (via) => {
  let server: TestServer;
  let receiver: EventReceiver;
  let client: ReturnType<typeof createCallClient>;

  beforeAll(async () => {
    receiver = await startEventReceiver();
    server = await startTestServer({ clock, env: { EVENTS_POLL_MS: "20", EVENTS_RETRY_DELAYS_MS: "10,10,10" } });
    await installCounters(server.context.database.db);
    client = createCallClient(server.url);
  }, 120_000);
  afterAll(async () => {
    client?.close();
    await server?.stop();
    await receiver?.close();
  });

  /** A start and an end naming an intent and a variable; the call's id. */
  async function call(calls: KeyedCallClient): Promise<string> {
    const callId = uniqueCallId("listened");
    const started = await calls.start({ call_id: callId, identity_hints: { ani: "+14155573456" } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const ended = await calls.end({
      call_id: callId,
      customer_ref: started.body.customer_ref,
      intent: "billing_question",
      intent_status: "resolved",
      variables: { preferred_language: "en" },
    });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    return callId;
  }

  /** What `work` changed of the counts. */
  async function counted(work: () => Promise<unknown>): Promise<Counts> {
    const db = server.context.database.db;
    const before = await counts(db);
    await work();
    const after = await counts(db);
    return { ends: after.ends - before.ends, outboxInserts: after.outboxInserts - before.outboxInserts };
  }

  test("the ends of an account without an endpoint are one statement each, with no insert into the outbox", async () => {
    const { apiKey } = await createAccountWithKey(server.url);
    const calls = forKey(client, via, apiKey);
    expect(await counted(() => Promise.all([call(calls), call(calls), call(calls)]))).toEqual({
      ends: 3,
      outboxInserts: 0,
    });
  });

  test("an endpoint created after an account's ends gets the next end's events, and later ends go with them", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    const calls = forKey(client, via, apiKey);
    await call(calls);
    const { endpointId, secret } = await createEventEndpoint(server.url, accountId, {
      url: receiver.url,
      event_types: ["call.ended"],
    });
    receiver.secret = secret;

    // The end without its events finds the endpoint in its own snapshot, undoes itself, and runs again with them.
    let callId = "";
    expect(await counted(async () => (callId = await call(calls)))).toEqual({ ends: 2, outboxInserts: 1 });
    const [event] = await receiver.waitFor(1, (e) => e.payload?.data?.call_id === callId);
    expect(event!.payload.type).toBe("call.ended");
    // Written once, by the end's second statement: the endpoint's only delivery.
    const deliveries = await listEventDeliveries(server.url, endpointId);
    expect(deliveries.map((delivery) => delivery.event_id)).toEqual([event!.payload.id]);

    expect(await counted(() => call(calls))).toEqual({ ends: 1, outboxInserts: 1 });
  });

  test("a minute after its last end that found an endpoint, a tenant whose endpoint was disabled gets the lean statement again", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    const calls = forKey(client, via, apiKey);
    const { endpointId } = await createEventEndpoint(server.url, accountId, {
      url: receiver.url,
      event_types: ["intent.resolved"],
    });
    expect(await counted(() => call(calls))).toEqual({ ends: 2, outboxInserts: 1 });
    const disabled = await post(server.url, `/admin/v1/event-endpoints/${endpointId}/enabled`, ADMIN_TOKEN, {
      enabled: false,
    });
    expect(disabled.status).toBe(200);

    // Still remembered: the end goes with its events first, and they go nowhere.
    expect(await counted(() => call(calls))).toEqual({ ends: 1, outboxInserts: 1 });
    clock.set(new Date(clock.now().getTime() + 61_000));
    expect(await counted(() => call(calls))).toEqual({ ends: 1, outboxInserts: 0 });
  });
});
