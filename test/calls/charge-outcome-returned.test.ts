import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isQuotaExhausted } from "../../src/calls/billed.ts";
import type { CallDeps, CallRequest } from "../../src/calls/call-write.ts";
import { createEndEventListeners } from "../../src/calls/end-event-listeners.ts";
import { startCall } from "../../src/calls/start-call.ts";
import { systemClock } from "../../src/domain/clock.ts";
import { createForgetMeHasher } from "../../src/domain/forget-me.ts";
import type { MonthlyAllowance } from "../../src/domain/tiers.ts";
import { insertAccount } from "../../src/store/account-repository.ts";
import { type MigratedTestDatabase, openMigratedTestDatabase } from "../helpers/test-database.ts";

// A billed use case returns what became of its charge, or the quota's refusal,
// as a value: it writes nothing on what it was given (the request arrives
// frozen here), and a refused start leaves no call behind.

const OPEN_TIMEOUT_MS = 180_000;
const ALLOWANCE: MonthlyAllowance = { free: 100, starter: 10_000, growth: 100_000, scale: 1_000_000 };
let opened: MigratedTestDatabase;
let deps: CallDeps;

beforeAll(async () => {
  opened = await openMigratedTestDatabase();
  const { database } = opened;
  deps = {
    db: database.db,
    clock: systemClock,
    defaultRegion: "US",
    sensitiveData: "reject",
    inflightAbort: database.inflightAbort,
    forgetMe: createForgetMeHasher(() => Buffer.alloc(32, 7)),
    endEventListeners: createEndEventListeners(systemClock),
  };
}, OPEN_TIMEOUT_MS);
afterAll(() => opened?.close());

async function frozenRequestFor(credits: number): Promise<CallRequest> {
  const accountId = `acct_outcome_${Math.random().toString(36).slice(2, 10)}`;
  await insertAccount(
    deps.db,
    { id: accountId, name: accountId, billing_account_id: `ba_${accountId}`, tier: "growth", created_at: new Date() },
    credits,
  );
  const charge = Object.freeze({ accountId, allowance: Object.freeze({ ...ALLOWANCE }) });
  return Object.freeze({ tenant: Object.freeze({ accountId, mode: "test" as const }), retentionDays: 30, charge });
}

async function callsOf(accountId: string): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::int as n from calls where account_id = ${accountId}`.execute(deps.db);
  return rows[0]?.n ?? 0;
}

const input = (callId: string) => ({ callId, identityHints: { ani: "+14155550123", externalIds: {} } });

describe("a billed start", () => {
  test("returns its value and the credits left after its charge", async () => {
    const request = await frozenRequestFor(5);
    const started = await startCall(deps, request, input("outcome-1"));
    expect(isQuotaExhausted(started)).toBe(false);
    expect(started).toMatchObject({ value: { callId: "outcome-1" }, charge: { charged: true } });
    expect(await callsOf(request.tenant.accountId)).toBe(1);
  });

  test("without credit returns the quota's refusal and writes nothing", async () => {
    const request = await frozenRequestFor(0);
    const started = await startCall(deps, request, input("outcome-2"));
    expect(started).toEqual({ quotaExhausted: true, charge: { charged: false } });
    expect(await callsOf(request.tenant.accountId)).toBe(0);
  });
});
