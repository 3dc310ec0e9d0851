import { sql } from "kysely";
import { describe, expect, test } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { TRANSPORTS } from "../helpers/call-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// A call that uses the links its customer already holds (the number, the CRM
// id, the dialled line) writes them again only once a day: a call's end, or
// another call the same day, leaves the rows as they are (no new row version),
// and a call a day later refreshes when they were last seen.

const HOUR = 60 * 60 * 1000;
const clock = createManualClock(new Date("2026-05-04T09:00:00.000Z"));
const fixture = useTestServer({ clock });

/** Each link row of the customer with its row version (xmin) and last_seen_at. */
async function linksOf(customerRef: string) {
  const { rows } = await sql<{ link: string; version: string; seen: Date }>`
    select kind || ':' || value as link, xmin::text as version, last_seen_at as seen
      from customer_identifiers where customer_id = ${customerRef}::uuid
    union all
    select 'dnis:' || dnis, xmin::text, last_seen_at from customer_dnis where customer_id = ${customerRef}::uuid
    order by link
  `.execute(fixture.server.context.database.db);
  return rows.map((row) => ({ ...row, seen: new Date(row.seen).toISOString() }));
}

describe.each(TRANSPORTS)("links held by the customer, over %s", (protocol) => {
  const calls = fixture.over(protocol);
  const ani = protocol === "rest" ? "+14155550711" : "+14155550712";
  const hints = { ani, dnis: "+14155550100", external_ids: { crm_id: `crm-${protocol}-links` } };

  test("are not rewritten by the call's end or a call the same day, and are refreshed a day later", async () => {
    const first = await calls.start({ call_id: `${protocol}-links-1`, identity_hints: hints });
    expect(first.status).toBe(200);
    const ref = first.body.customer_ref;
    const written = await linksOf(ref);
    expect(written.map((row) => row.link)).toEqual([
      `ani:${ani}`,
      "dnis:+14155550100",
      `external_id:crm-${protocol}-links`,
    ]);

    const ended = await calls.end({ call_id: `${protocol}-links-1`, customer_ref: ref, intent: "billing" });
    expect(ended.status).toBe(200);
    clock.advance(2 * HOUR);
    const again = await calls.start({ call_id: `${protocol}-links-2`, identity_hints: hints });
    expect(again.body.customer_ref).toBe(ref);
    expect(await linksOf(ref)).toEqual(written);

    clock.advance(23 * HOUR);
    await calls.start({ call_id: `${protocol}-links-3`, identity_hints: hints });
    const refreshed = await linksOf(ref);
    expect(refreshed.map((row) => row.seen)).toEqual(written.map(() => clock.now().toISOString()));
    for (const [i, row] of refreshed.entries()) expect(row.version).not.toBe(written[i].version);
  });
});
