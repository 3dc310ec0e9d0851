import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createWriteLedger, readBackWrites } from "../../bench/phases/acknowledged-writes.ts";
import type { BenchDatabase } from "../../bench/service/bench-database.ts";
import { type MigratedTestDatabase, openMigratedTestDatabase } from "../helpers/test-database.ts";

// The bursts' read-back (bench/phases/acknowledged-writes.ts): what the
// client was told, against the calls table. It reads the ledger's ids in
// chunks through a join on unnest; how long that takes on a large table is
// measured, not tested (docs/performance-log.md, "Plans made on empty tables").

const OPEN_TIMEOUT_MS = 180_000;
let opened: MigratedTestDatabase;
let bench: BenchDatabase;

beforeAll(async () => {
  opened = await openMigratedTestDatabase();
  const { database } = opened;
  // The read-back opens the database and closes it after; here it is the test's one store, closed by the test.
  bench = {
    kind: database.kind,
    name: "test",
    env: {},
    open: async () => ({ ...database, close: async () => {} }),
    dispose: async () => {},
  };
  await sql`
    insert into calls (account_id, mode, call_id, call_start, call_end) values
      ('acct', 'live', 'ended', now(), now()),
      ('acct', 'live', 'ended-too', now(), now()),
      ('acct', 'live', 'open', now(), null),
      ('acct', 'live', 'shed-but-written', now(), null)`.execute(database.db);
}, OPEN_TIMEOUT_MS);
afterAll(() => opened?.close());

describe("reading the acknowledged writes back", () => {
  test("finds each acknowledged start and end, and what should not be there", {
    timeout: OPEN_TIMEOUT_MS,
  }, async () => {
    const ledger = createWriteLedger();
    ledger.startsAcknowledged.push("ended", "ended-too", "open", "lost-start");
    ledger.endsAcknowledged.push("ended", "ended-too", "open");
    ledger.startsShed.push("shed-but-written", "shed");
    ledger.startsTimedOut.push("timed-out");

    expect(await readBackWrites(bench, ledger)).toEqual({
      startsAcknowledged: 4,
      startsShed: 2,
      startsTimedOut: 1,
      endsAcknowledged: 3,
      startsLost: 1,
      endsLost: 1,
      shedWithRow: 1,
      timedOutWithRow: 0,
    });
  });
});
