import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readBlocksTouched } from "../../src/database/blocks-touched.ts";
import type { Db } from "../../src/store/database.ts";
import { startCountedServer } from "../helpers/counted-server.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import type { TestServer } from "../helpers/test-server.ts";

// A call's statements are lookups by key: what they read grows with the
// caller's identifiers, never with the account, whatever PostgreSQL's
// statistics say (docs/architecture.md, "Plans that cannot degrade"). The
// statistics here lie the way a new deployment's do: the service's one
// connection makes its plans while the tables are empty (analyzed so, or
// never analyzed) or small, and 100,000 customers arrive afterwards with
// nothing analyzing them. Blocks touched are counted by the database itself
// (pg_stat_database) for the statements exactly as the service sends them,
// and compared with the same calls made when the database held 100 customers.

const LARGE = 100_000;
const SMALL = 100;
/** Calls measured of each kind. */
const CALLS = 21;
const ALLOWED_RATIO = 1.5;
const TIMEOUT_MS = 600_000;

interface Account {
  readonly accountId: string;
  readonly apiKey: string;
}

/** Blocks one operation of a call touches (the median of a batch). */
interface CallCosts {
  readonly knownStart: number;
  readonly identify: number;
  readonly end: number;
  readonly newStart: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Seeded caller `i` of a batch: a number of an area code of its own (E.164, as the service stores it). */
const aniOf = (areaCode: number, i: number) => `+1${areaCode}${2_000_000 + i}`;

describe.each([
  { statistics: "analyzed while the tables were empty", analyzeEmpty: true, analyzeSmall: false },
  { statistics: "never analyzed", analyzeEmpty: false, analyzeSmall: false },
  { statistics: "analyzed at 100 customers, 1,000 times too few", analyzeEmpty: false, analyzeSmall: true },
])("with the statistics $statistics", ({ analyzeEmpty, analyzeSmall }) => {
  let server: TestServer;
  let db: Db;
  let small: CallCosts;
  let large: CallCosts;
  let smallAgain: CallCosts;

  beforeAll(async () => {
    // One connection, so the plans every call uses are the ones made below, before the customers came.
    ({ server, db } = await startCountedServer());
    const bigAccount = await createAccountWithKey(server.url);
    const smallAccount = await createAccountWithKey(server.url);
    if (analyzeEmpty) await sql`analyze`.execute(db);
    // Every statement of a call is planned now, on empty tables.
    await costsOf(smallAccount, 415, 0, 1);

    await addCustomers(smallAccount, 213, SMALL);
    if (analyzeSmall) await sql`analyze`.execute(db);
    small = await costsOf(smallAccount, 213, 1, CALLS);
    await addCustomers(bigAccount, 212, LARGE);
    large = await costsOf(bigAccount, 212, 1, CALLS);
    smallAgain = await costsOf(smallAccount, 213, 1 + CALLS, CALLS);
  }, TIMEOUT_MS);
  afterAll(() => server?.stop());

  /** `count` customers, each with a number and a call just now, written as a bulk load would. */
  async function addCustomers(account: Account, areaCode: number, count: number): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await sql`set local statement_timeout = 0`.execute(trx);
      await sql`
        insert into customers (id, account_id, mode, created_at, last_call_at)
        select md5(${account.accountId} || i)::uuid, ${account.accountId}, 'test', now(), now()
        from generate_series(1, ${count}) as i`.execute(trx);
      await sql`
        insert into customer_identifiers (account_id, mode, kind, namespace, value, customer_id, last_seen_at)
        select ${account.accountId}, 'test', 'ani', '', '+1' || ${areaCode} || (2000000 + i)::text,
          md5(${account.accountId} || i)::uuid, now()
        from generate_series(1, ${count}) as i`.execute(trx);
    });
  }

  /**
   * `count` calls from seeded callers first, .. first+count-1 (a start, an identify by a CRM id, an end
   * saving an intent and a variable), and as many starts of callers never seen; the median blocks each
   * kind touched. The median, because the service's own timers (the request log's writes, a statement
   * they plan for the first time) now and then land inside one call's count.
   */
  async function costsOf(account: Account, areaCode: number, first: number, count: number): Promise<CallCosts> {
    const blocks: Record<keyof CallCosts, number[]> = { knownStart: [], identify: [], end: [], newStart: [] };
    for (let n = first; n < first + count; n++) {
      const callId = `known-${n}`;
      const hints = { ani: aniOf(areaCode, n) };
      let customerRef = "";
      blocks.knownStart.push(
        await blocksOf(async () => {
          customerRef = await call(account, "start", { call_id: callId, identity_hints: hints });
        }),
      );
      blocks.identify.push(
        await blocksOf(() =>
          call(account, "identify", { call_id: callId, identity_hints: { external_ids: { crm_id: `crm-${n}` } } }),
        ),
      );
      blocks.end.push(
        await blocksOf(() =>
          call(account, "end", {
            call_id: callId,
            customer_ref: customerRef,
            intent: "billing_question",
            intent_status: "open",
            variables: { preferred_name: "Ann" },
          }),
        ),
      );
      blocks.newStart.push(
        await blocksOf(() =>
          call(account, "start", { call_id: `new-${n}`, identity_hints: { ani: aniOf(areaCode + 100, n) } }),
        ),
      );
    }
    return {
      knownStart: median(blocks.knownStart),
      identify: median(blocks.identify),
      end: median(blocks.end),
      newStart: median(blocks.newStart),
    };
  }

  async function call(account: Account, operation: string, body: object): Promise<string> {
    const answer = await post(server.url, `/v1/calls/${operation}`, account.apiKey, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.customer_ref;
  }

  async function blocksOf(operation: () => Promise<unknown>): Promise<number> {
    const before = await readBlocksTouched(db);
    await operation();
    return (await readBlocksTouched(db)) - before;
  }

  test.each(["knownStart", "identify", "end", "newStart"] as const)(
    "%s touches no more blocks at 100,000 customers than at 100",
    (kind) => {
      expect(large[kind], JSON.stringify({ small, large })).toBeLessThanOrEqual(ALLOWED_RATIO * small[kind]);
    },
  );

  test.each(["knownStart", "identify", "end", "newStart"] as const)(
    "%s in a small account costs the same beside a large one",
    (kind) => {
      expect(smallAgain[kind], JSON.stringify({ small, smallAgain })).toBeLessThanOrEqual(ALLOWED_RATIO * small[kind]);
    },
  );
});
