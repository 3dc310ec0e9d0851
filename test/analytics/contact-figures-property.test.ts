import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { countEndedCalls, SETTLE_MS } from "../../src/jobs/contact-figures-job.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// The job's counts, made batch by batch as calls end, equal the figures computed from scratch over the raw
// calls by the reference below (docs/analytics.md's definitions, written as a walk over each customer's whole
// history rather than as changes).

const DAY = 24 * 60 * 60 * 1000;
const INTENTS = ["billing", "address", "refund"];

interface RawCall {
  readonly callId: string;
  readonly customer: number;
  readonly start: number;
  readonly end: number;
  readonly intents: readonly { intent: string; status: "open" | "resolved" }[];
}

type Counts = Record<string, number>;
const COLUMNS = [
  "calls",
  "repeat_calls",
  "followed_by_repeat",
  "issues_opened",
  "first_contact",
  "issues_resolved",
  "attempts_sum",
  "attempts_1",
  "attempts_2",
  "attempts_3",
  "attempts_4",
  "attempts_5_or_more",
];

/** From scratch: every customer's calls in the order they ended, each issue as the calls it was made of. */
function referenceFigures(calls: readonly RawCall[], windowDays: number): Map<string, Counts> {
  const window = windowDays * DAY;
  const out = new Map<string, Counts>();
  const bump = (day: number, intent: string, column: string, by = 1) => {
    const key = `${new Date(day).toISOString().slice(0, 10)}|${intent}`;
    const counts = out.get(key) ?? Object.fromEntries(COLUMNS.map((c) => [c, 0]));
    counts[column] = (counts[column] ?? 0) + by;
    out.set(key, counts);
  };
  const ordered = [...calls].sort((a, b) => a.end - b.end || a.callId.localeCompare(b.callId));
  const customers = new Set(ordered.map((c) => c.customer));
  for (const customer of customers) {
    const own = ordered.filter((c) => c.customer === customer);
    // Repeat contacts: each call against the latest-starting call before it in the order of ends.
    let last: RawCall | undefined;
    for (const call of own) {
      bump(call.start, "", "calls");
      for (const { intent } of call.intents) bump(call.start, intent, "calls");
      if (last && call.start - last.start >= 0 && call.start - last.start < window) {
        bump(call.start, "", "repeat_calls");
        bump(last.start, "", "followed_by_repeat");
        for (const { intent } of last.intents) bump(last.start, intent, "followed_by_repeat");
      }
      if (!last || call.start >= last.start) last = call;
    }
    // Issues: per intent, split the calls that saved it into issues, then count each issue once.
    for (const intent of INTENTS) {
      const issues: { opened: number; attempts: number; resolvedAt?: number; reopened: boolean }[] = [];
      for (const call of own) {
        const saved = call.intents.find((i) => i.intent === intent);
        if (!saved) continue;
        const current = issues.at(-1);
        const startsNew = !current || (current.resolvedAt !== undefined && call.start - current.resolvedAt >= window);
        if (startsNew) {
          issues.push({
            opened: call.start,
            attempts: 1,
            ...(saved.status === "resolved" ? { resolvedAt: call.start } : {}),
            reopened: false,
          });
        } else if (current.resolvedAt === undefined) {
          current.attempts++;
          if (saved.status === "resolved") current.resolvedAt = call.start;
        } else if (saved.status === "open") {
          current.attempts++;
          current.resolvedAt = undefined;
          current.reopened = true;
        }
      }
      for (const issue of issues) {
        if (issue.resolvedAt === undefined) bump(issue.opened, "", "open");
        bump(issue.opened, intent, "issues_opened");
        if (issue.attempts === 1 && issue.resolvedAt !== undefined && !issue.reopened)
          bump(issue.opened, intent, "first_contact");
        if (issue.resolvedAt !== undefined) {
          bump(issue.resolvedAt, intent, "issues_resolved");
          bump(issue.resolvedAt, intent, "attempts_sum", issue.attempts);
          bump(issue.resolvedAt, intent, COLUMNS[6 + Math.min(issue.attempts, 5)] ?? "");
        }
      }
    }
  }
  return withoutZeros(out);
}

function withoutZeros(figures: Map<string, Counts>): Map<string, Counts> {
  return new Map([...figures].filter(([, counts]) => Object.values(counts).some((n) => n !== 0)).sort());
}

const callsArbitrary = fc
  .array(
    fc.record({
      customer: fc.integer({ min: 0, max: 3 }),
      gapMinutes: fc.oneof(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: 20 * 24 * 60 })),
      durationMinutes: fc.integer({ min: 1, max: 600 }),
      intents: fc.uniqueArray(
        fc.record({
          intent: fc.constantFrom(...INTENTS),
          status: fc.constantFrom("open" as const, "resolved" as const),
        }),
        { maxLength: 2, selector: (i) => i.intent },
      ),
    }),
    { minLength: 1, maxLength: 25 },
  )
  .map((drafts) => {
    let at = Date.UTC(2026, 9, 1, 9);
    return drafts.map((d, n): RawCall => {
      at += d.gapMinutes * 60_000;
      return {
        callId: `call-${String(n).padStart(3, "0")}`,
        customer: d.customer,
        start: at,
        end: at + d.durationMinutes * 60_000,
        intents: d.intents,
      };
    });
  });

describe("contact figures: the job's incremental counts equal the figures from scratch", () => {
  const clock = createManualClock(new Date(Date.UTC(2026, 9, 1)));
  let server: TestServer;
  beforeAll(async () => {
    // The server's own jobs stay out of the way: the test runs the job itself, at the moments it chooses.
    server = await startTestServer({
      clock,
      env: { CONTACT_FIGURES_INTERVAL_MS: "86400000", SWEEP_INTERVAL_MS: "86400000" },
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("for random call histories, batch sizes and run moments", async () => {
    await fc.assert(
      fc.asyncProperty(
        callsArbitrary,
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.boolean(), { minLength: 25, maxLength: 25 }),
        fc.integer({ min: 1, max: 4 }),
        async (calls, windowDays, runAfter, batchSize) => {
          const db = server.context.database.db;
          const { accountId } = await createAccountWithKey(server.url);
          await sql`update accounts set repeat_window_days = ${windowDays} where id = ${accountId}`.execute(db);
          // The days counted are the service's, whatever the account: each history starts them afresh.
          await sql`delete from contact_figures_days`.execute(db);
          const customers = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
          for (const id of customers) {
            await sql`insert into customers (id, account_id, mode, created_at, last_call_at)
              values (${id}, ${accountId}, 'test', ${new Date(calls[0]?.start ?? 0)}, ${new Date(calls[0]?.start ?? 0)})`.execute(
              db,
            );
          }
          const run = async (now: number) => {
            for (;;) {
              const result = await countEndedCalls(db, new Date(now), batchSize);
              if (result?.caughtUp) return;
            }
          };
          const byEnd = [...calls].sort((a, b) => a.end - b.end);
          for (const [n, call] of byEnd.entries()) {
            await sql`insert into calls (account_id, mode, call_id, customer_id, call_start, call_end, intents)
              values (${accountId}, 'test', ${call.callId}, ${customers[call.customer]}, ${new Date(call.start)},
                ${new Date(call.end)}, ${call.intents.length ? JSON.stringify(call.intents) : null}::jsonb)`.execute(
              db,
            );
            // What the end's statement queues for the job (src/store/calls/record-end.ts).
            await sql`insert into contact_figures_queue (account_id, mode, call_id, call_end)
              values (${accountId}, 'test', ${call.callId}, ${new Date(call.end)})`.execute(db);
            // Runs at some ends, and always before the next call ends more than half a day later; never at a
            // moment when a call still to come would count as settled (ended SETTLE_MS before), as in service.
            const next = byEnd[n + 1];
            if (!next) await run(call.end + SETTLE_MS);
            else if (runAfter[n] || next.end - call.end > DAY / 2) await run(next.end - 1 + SETTLE_MS);
          }
          const { rows } = await sql<Counts & { day: string; intent: string }>`
            select to_char(day, 'YYYY-MM-DD') as day, intent, ${sql.raw(COLUMNS.join(", "))}
            from contact_figures_days where account_id = ${accountId}`.execute(db);
          const kept = withoutZeros(
            new Map(rows.map(({ day, intent, ...counts }) => [`${day}|${intent}`, counts as Counts])),
          );
          const reference = referenceFigures(calls, windowDays);
          // The open issues per day they opened, kept by the trigger beside the day counts.
          const open = await sql<{ day: string; open: number }>`
            select to_char(day, 'YYYY-MM-DD') as day, open from contact_figures_open
            where account_id = ${accountId} and open <> 0`.execute(db);
          const openByDay = Object.fromEntries(open.rows.map((r) => [r.day, r.open]));
          const expectedOpen = Object.fromEntries(
            [...reference].flatMap(([key, counts]) => (counts.open ? [[key.slice(0, 10), counts.open]] : [])),
          );
          expect(openByDay).toEqual(expectedOpen);
          for (const counts of reference.values()) delete counts.open;
          expect(Object.fromEntries(kept)).toEqual(Object.fromEntries(withoutZeros(reference)));
        },
      ),
      { numRuns: 40 },
    );
  }, 240_000);
});
