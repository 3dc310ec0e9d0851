import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sweepOnce } from "../../src/jobs/sweeper.ts";
import type { Db } from "../../src/store/database.ts";
import { startCountedServer } from "../helpers/counted-server.ts";
import { cheaperOfTwoRuns, readTableBlocksTouched, relationPages } from "../helpers/database-measures.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import type { TestServer } from "../helpers/test-server.ts";

// The retention sweep reads the customers once a pass, however many there are and whatever PostgreSQL's
// statistics said when its plan was made (docs/architecture.md, "The sweep joins by hash"). Its plan is
// made here on the service's one connection while each account has a few customers, then 20,000 more
// arrive with nothing analyzing them. A pass may read the new customers' pages; a plan that probes an
// account for each customer row touches several blocks per row, well past that.

const FEW = 2;
const MANY = 20_000;
/** Customers past their account's retention in each pass: the sweep still has work to do. */
const STALE = 3;
const ACCOUNTS = 4;

describe.each([
  { statistics: "analyzed while each account had two customers", analyze: true },
  { statistics: "never analyzed", analyze: false },
])("a sweep with the statistics $statistics", ({ analyze }) => {
  let server: TestServer;
  let db: Db;
  let accountIds: string[];
  let few: { blocks: number; swept: number };
  let many: { blocks: number; swept: number };
  let pagesAdded: number;

  beforeAll(async () => {
    // One connection, so the sweep's plan is the one made on the few customers.
    ({ server, db } = await startCountedServer());
    accountIds = [];
    for (let i = 0; i < ACCOUNTS; i++) accountIds.push((await createAccountWithKey(server.url)).accountId);
    await addCustomers("few", FEW);
    if (analyze) await sql`analyze`.execute(db);
    few = await cheaperOfTwoPasses("few");
    const pagesBefore = await relationPages(db, "customers");
    await addCustomers("many", MANY);
    pagesAdded = (await relationPages(db, "customers")) - pagesBefore;
    many = await cheaperOfTwoPasses("many");
  }, 300_000);
  afterAll(() => server?.stop());

  /**
   * `count` customers spread over the accounts, each last called a second before the one before it, and
   * STALE more called 400 days ago, past any retention.
   */
  async function addCustomers(batch: string, count: number): Promise<void> {
    await sql`
      insert into customers (id, account_id, mode, created_at, last_call_at)
      select md5(${batch} || i)::uuid, (${accountIds}::text[])[1 + i % ${ACCOUNTS}], 'test', now(),
        case when i <= ${STALE} then now() - interval '400 days' else now() - i * interval '1 second' end
      from generate_series(1, ${count + STALE}) as i`.execute(db);
  }

  /** A pass, then another once STALE more customers are past their retention. */
  function cheaperOfTwoPasses(batch: string): Promise<{ blocks: number; swept: number }> {
    return cheaperOfTwoRuns(async (run) => {
      if (run === 1) await addCustomers(`${batch} again`, 0);
      return sweepMeasured();
    });
  }

  async function sweepMeasured(): Promise<{ blocks: number; swept: number }> {
    const before = await readTableBlocksTouched(db);
    const result = await sweepOnce(db, new Date(), 1000, server.config.monthlyQuota);
    const blocks = (await readTableBlocksTouched(db)) - before;
    return { blocks, swept: result?.customers ?? Number.NaN };
  }

  test("deletes the customers past their retention, and only those", () => {
    expect(few.swept).toBe(STALE);
    expect(many.swept).toBe(STALE);
  });

  test("touches at most twice the pages the new customers take, beyond what it touched before them", () => {
    const detail = JSON.stringify({ few, many, pagesAdded });
    expect(pagesAdded, detail).toBeGreaterThan(100);
    expect(many.blocks - few.blocks, detail).toBeLessThanOrEqual(2 * pagesAdded);
  });
});
