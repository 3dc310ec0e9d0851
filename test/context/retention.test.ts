import { describe, expect, test } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { sweepOnce } from "../../src/jobs/sweeper.ts";
import { TRANSPORTS } from "../helpers/call-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

const DAY = 24 * 60 * 60 * 1000;
const clock = createManualClock(new Date("2026-01-10T10:00:00.000Z"));
const fixture = useTestServer({ clock });

const sweep = () =>
  sweepOnce(fixture.server.context.database.db, clock.now(), 1000, fixture.server.config.monthlyQuota);

describe.each(TRANSPORTS)("retention over %s", (protocol) => {
  const calls = fixture.over(protocol);
  let n = 0;
  const next = (label: string) => `${protocol}-${label}-${++n}`;

  test("context older than 90 days is no longer matched, and the sweeper purges it", async () => {
    const hints = { external_ids: { crm_id: next("crm") } };
    const callId = next("call");
    const first = await calls.start({ call_id: callId, identity_hints: hints });
    await calls.end({ call_id: callId, customer_ref: first.body.customer_ref, variables: { plan: "gold" } });

    clock.advance(89 * DAY);
    const within = await calls.start({ call_id: next("call"), identity_hints: hints });
    expect(within.body.customer_ref).toBe(first.body.customer_ref);

    clock.advance(90 * DAY + 1);
    const swept = await sweep();
    expect(swept?.customers).toBeGreaterThanOrEqual(1);
    const after = await calls.start({ call_id: next("call"), identity_hints: hints });
    expect(after.body.customer_ref).not.toBe(first.body.customer_ref);
    expect(after.body.identity.confidence).toBe(0);
    expect(after.body.variables).toEqual({});
  });

  test("a call_id may be reused only after 30 days", async () => {
    const callId = next("reuse");
    const hints = { ani: "+14155550333" };
    expect((await calls.start({ call_id: callId, identity_hints: hints })).status).toBe(200);
    clock.advance(30 * DAY - 1);
    expect((await calls.start({ call_id: callId, identity_hints: hints })).status).toBe(409);
    clock.advance(2);
    expect((await calls.start({ call_id: callId, identity_hints: hints })).status).toBe(200);
  });

  test("expired variables and idempotency keys are purged by the sweeper", async () => {
    const hints = { external_ids: { crm_id: next("crm") } };
    const callId = next("call");
    const started = await calls.start({ call_id: callId, identity_hints: hints });
    await calls.end(
      {
        call_id: callId,
        customer_ref: started.body.customer_ref,
        variable_updates: { short: { value: "x", ttl_seconds: 10 } },
      },
      { "Idempotency-Key": next("key") },
    );
    clock.advance(DAY + 1);
    const swept = await sweep();
    expect(swept?.variables).toBeGreaterThanOrEqual(1);
    expect(swept?.idempotencyKeys).toBeGreaterThanOrEqual(1);
  });
});

describe("sweeper", () => {
  test("works in bounded batches", async () => {
    const calls = fixture.over("rest");
    for (let i = 0; i < 5; i++) {
      const callId = `batch-${i}`;
      const started = await calls.start({ call_id: callId, identity_hints: { external_ids: { batch: String(i) } } });
      await calls.end({
        call_id: callId,
        customer_ref: started.body.customer_ref,
        variable_updates: { v: { value: "1", ttl_seconds: 1 } },
      });
    }
    clock.advance(2000);
    const first = await sweepOnce(
      fixture.server.context.database.db,
      clock.now(),
      2,
      fixture.server.config.monthlyQuota,
    );
    expect(first?.variables).toBe(2);
    const second = await sweepOnce(
      fixture.server.context.database.db,
      clock.now(),
      2,
      fixture.server.config.monthlyQuota,
    );
    expect(second?.variables).toBe(2);
    const third = await sweepOnce(
      fixture.server.context.database.db,
      clock.now(),
      2,
      fixture.server.config.monthlyQuota,
    );
    expect(third?.variables).toBe(1);
  });
});
