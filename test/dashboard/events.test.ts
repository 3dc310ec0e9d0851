import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../src/domain/events.ts";
import { createDashboardClient, type DashboardClient } from "../helpers/dashboard-client.ts";
import { listEventDeliveries } from "../helpers/event-endpoints.ts";
import { type EventReceiver, SLOW_ANSWER_MS, startEventReceiver } from "../helpers/event-receiver.ts";
import { linkIn, logMailbox } from "../helpers/mailbox.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// The Events tab over the real wire: endpoints made, tested, disabled,
// rolled and deleted through forms that answer 303 (Post/Redirect/Get), the
// signing secret shown once, deliveries verified by a receiver with the
// standardwebhooks package; another account's ids name nothing, and a
// member cannot change a production endpoint.

const PASSWORD = "a long and unique passphrase";
const secretOf = (html: string) => /id="signing-secret"[^>]*value="(whsec_[^"]+)"/.exec(html)?.[1];
const endpointIdsOf = (html: string) => [...html.matchAll(/data-endpoint-id="(we_[0-9A-Za-z]+)"/g)].map((m) => m[1]!);
const deliveryIdsOf = (html: string) => [...html.matchAll(/data-delivery-id="(dlv_\d+)"/g)].map((m) => m[1]!);
/** A prod endpoint must be https on a public address; an address literal needs no DNS, and nothing is sent to it. */
const PUBLIC_URL = "https://1.1.1.1/caller-context-events";

describe("dashboard events", () => {
  // Retries a few milliseconds apart: the test is about what the pages show, not the schedule's pace.
  const fixture = useTestServer({ env: { EVENTS_POLL_MS: "20", EVENTS_RETRY_DELAYS_MS: "10,10,10" } });
  const mailbox = () => logMailbox(fixture.server);
  let receiver: EventReceiver;
  beforeAll(async () => {
    receiver = await startEventReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  const owner = async (tag: string) => {
    const client = createDashboardClient(fixture.server.url, { mailbox: mailbox() });
    await client.signUp(`events-${tag}@example.com`, PASSWORD, `Events ${tag}`);
    return client;
  };
  const createEndpoint = async (client: DashboardClient, form: Record<string, string | string[]>) => {
    await client.get("/dashboard/events");
    const page = await client.submit("/dashboard/events", { event_types: [...EVENT_TYPES], ...form });
    expect(page.redirectedTo).toBe("/dashboard/events");
    // The secret card, above the list, names the endpoint just made.
    const id = /action="\/dashboard\/events\/(we_[0-9A-Za-z]+)\/test"/.exec(page.html)![1]!;
    return { id, secret: secretOf(page.html)!, page };
  };
  const testEventsTo = (endpointId: string) => (event: { payload: any }) =>
    event.payload?.type === "endpoint.test" && event.payload.data?.endpoint_id === endpointId;
  /** The deliveries page once every delivery on it has finished. */
  const settledDeliveries = async (client: DashboardClient, endpointId: string, count: number) => {
    let html = "";
    await expect
      .poll(async () => {
        html = (await client.get(`/dashboard/events/${endpointId}`)).html;
        return [deliveryIdsOf(html).length, html.includes('delivery-state pending"')];
      })
      .toEqual([count, false]);
    return html;
  };

  it("creates an endpoint, shows its secret once, and delivers, redelivers, disables, rolls and deletes", async () => {
    const client = await owner("flow");
    const list = await client.get("/dashboard/events");
    expect(list.status).toBe(200);
    expect(list.html).toContain('href="/dashboard/events" aria-current="page"');
    // Every type is checked until the person unchecks one.
    expect(list.html.match(/name="event_types" type="checkbox" value="[a-z.]+" checked/g)).toHaveLength(6);

    const created = await createEndpoint(client, { url: receiver.url, kind: "test" });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.page.html).toContain("Standard Webhooks");
    expect(created.page.html).toContain('data-copy="signing-secret"');
    expect(secretOf((await client.get("/dashboard/events")).html)).toBeUndefined();
    receiver.secret = created.secret;

    const tested = await client.submit(`/dashboard/events/${created.id}/test`, {});
    expect(tested.redirectedTo).toBe(`/dashboard/events/${created.id}`);
    const [event] = await receiver.waitFor(1, testEventsTo(created.id));
    expect(event!.verified).toBe(true);
    let html = await settledDeliveries(client, created.id, 1);
    expect(html).toContain(event!.payload.id);
    expect(html).toContain('delivery-state delivered"');
    expect(html).toContain('<span class="code ok">204</span>');

    const [deliveryId] = deliveryIdsOf(html);
    const again = await client.post(`/dashboard/events/${created.id}/deliveries/${deliveryId}/redeliver`, {});
    expect(again.status).toBe(303);
    const both = await receiver.waitFor(2, testEventsTo(created.id));
    expect(both[1]!.webhookId).toBe(event!.webhookId);
    html = await settledDeliveries(client, created.id, 2);

    const disabled = await client.submit(`/dashboard/events/${created.id}/enabled`, { enabled: "false" });
    expect(disabled.redirectedTo).toBe("/dashboard/events");
    expect(disabled.html).toContain("<strong>Not receiving events.</strong> Disabled by hand");
    await client.submit(`/dashboard/events/${created.id}/test`, {});
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await receiver.waitFor(0, testEventsTo(created.id))).length).toBe(2);
    const enabled = await client.submit(`/dashboard/events/${created.id}/enabled`, {
      enabled: "true",
      back: "deliveries",
    });
    expect(enabled.redirectedTo).toBe(`/dashboard/events/${created.id}`);
    await receiver.waitFor(3, testEventsTo(created.id));

    const rolled = await client.submit(`/dashboard/events/${created.id}/roll`, { grace: "now" });
    expect(rolled.redirectedTo).toBe("/dashboard/events");
    const newSecret = secretOf(rolled.html)!;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(created.secret);
    receiver.secret = newSecret;
    await client.submit(`/dashboard/events/${created.id}/test`, {});
    const [, , , afterRoll] = await receiver.waitFor(4, testEventsTo(created.id));
    expect(afterRoll!.verified).toBe(true);

    expect((await client.get(`/dashboard/events/${created.id}/delete`)).html).toContain("Delete this endpoint?");
    const deleted = await client.submit(`/dashboard/events/${created.id}/delete`, {});
    expect(deleted.redirectedTo).toBe("/dashboard/events");
    expect(endpointIdsOf(deleted.html)).toEqual([]);
    expect((await client.get(`/dashboard/events/${created.id}`)).status).toBe(404);

    const audit = (await client.get("/dashboard/account")).html;
    for (const name of [
      "Event endpoint created",
      "Test event sent",
      "Event redelivered",
      "Event endpoint disabled",
      "Event endpoint enabled",
      "Event endpoint rolled",
      "Event endpoint deleted",
    ]) {
      expect(audit).toContain(name);
    }
  });

  it("answers a refused form with its errors and changes nothing", async () => {
    const client = await owner("refused");
    await client.get("/dashboard/events");
    const none = await client.post("/dashboard/events", { url: receiver.url, kind: "test" });
    expect(none.status).toBe(400);
    expect(none.html).toContain("Choose at least one event type");
    expect(none.html).toContain(`value="${receiver.url}"`);
    const inward = await client.post("/dashboard/events", {
      url: receiver.url,
      kind: "prod",
      event_types: ["call.ended"],
    });
    expect(inward.status).toBe(400);
    expect(inward.html).toContain('class="field-error"');
    expect(endpointIdsOf((await client.get("/dashboard/events")).html)).toEqual([]);
  });

  it("answers 404 for another account's endpoint and its deliveries, and leaves them alone", async () => {
    const alice = await owner("alice");
    const { id } = await createEndpoint(alice, { url: receiver.url, kind: "test" });
    await alice.submit(`/dashboard/events/${id}/test`, {});
    const [deliveryId] = deliveryIdsOf(await settledDeliveries(alice, id, 1));

    const mallory = await owner("mallory");
    await mallory.get("/dashboard/events");
    expect((await mallory.get(`/dashboard/events/${id}`)).status).toBe(404);
    expect((await mallory.get(`/dashboard/events/${id}/delete`)).status).toBe(404);
    for (const [path, form] of [
      [`/dashboard/events/${id}/delete`, {}],
      [`/dashboard/events/${id}/enabled`, { enabled: "false" }],
      [`/dashboard/events/${id}/roll`, { grace: "now" }],
      [`/dashboard/events/${id}/test`, {}],
      [`/dashboard/events/${id}/deliveries/${deliveryId}/redeliver`, {}],
    ] as const) {
      expect((await mallory.post(path, form)).status, path).toBe(404);
    }
    const still = await alice.get(`/dashboard/events/${id}`);
    expect(still.status).toBe(200);
    expect(deliveryIdsOf(still.html)).toEqual([deliveryId]);
    expect(still.html).not.toContain("Not receiving events");
  });

  it("lets only an owner create, roll or delete a production endpoint", async () => {
    const lead = await owner("lead");
    const prod = await createEndpoint(lead, { url: PUBLIC_URL, kind: "prod", event_types: ["intent.opened"] });
    expect(prod.secret).toMatch(/^whsec_/);
    await lead.get("/dashboard/account");
    const invite = /id="invite-link"[^>]*value="([^"]+)"/.exec(
      (await lead.submit("/dashboard/account/invites", {})).html,
    )!;
    const member = createDashboardClient(fixture.server.url, { mailbox: mailbox() });
    const link = new URL(invite[1]!).pathname;
    await member.get(link);
    const email = "events-member@example.com";
    await member.submit("/dashboard/sign-up", { email, password: PASSWORD, invite: link.split("/").pop()! });
    await member.confirm(await linkIn(mailbox(), email, "/dashboard/verify/"));

    await member.get("/dashboard/events");
    const deleting = await member.post(`/dashboard/events/${prod.id}/delete`, {});
    expect(deleting.status).toBe(403);
    expect(deleting.html).toContain("Only an owner can delete a production event endpoint");
    expect((await member.post(`/dashboard/events/${prod.id}/roll`, { grace: "now" })).status).toBe(403);
    const creating = await member.post("/dashboard/events", {
      url: PUBLIC_URL,
      kind: "prod",
      event_types: ["call.ended"],
    });
    expect(creating.status).toBe(403);
    expect(endpointIdsOf((await lead.get("/dashboard/events")).html)).toEqual([prod.id]);

    // Test endpoints are the member's to make and remove.
    const mine = await createEndpoint(member, { url: receiver.url, kind: "test" });
    expect((await member.submit(`/dashboard/events/${mine.id}/delete`, {})).redirectedTo).toBe("/dashboard/events");
  });

  it("shows each delivery's latency, as the worker measured it", async () => {
    const client = await owner("latency");
    const { id, secret } = await createEndpoint(client, { url: receiver.url, kind: "test" });
    receiver.secret = secret;
    receiver.script("slow");
    await client.submit(`/dashboard/events/${id}/test`, {});
    const html = await settledDeliveries(client, id, 1);
    const shown = Number(/data-label="Latency" class="num nowrap">(\d+) ms</.exec(html)?.[1]);
    expect(shown).toBeGreaterThanOrEqual(SLOW_ANSWER_MS);
    const [delivery] = await listEventDeliveries(fixture.server.url, id);
    expect(shown).toBe(delivery.latency_ms);
  });
});
