// Who the seeded callers are. The SQL seed and the load generators derive a
// caller's number and CRM id from its index alone, so the client knows the
// population without reading it back.

export const BENCH_ACCOUNT_ID = "acct_bench";
export const BENCH_MODE = "test";
export const BENCH_TENANT = { accountId: BENCH_ACCOUNT_ID, mode: BENCH_MODE } as const;

const ANI_BASE = 2_000_000;

/** Caller `index` (0-based) calls from +1415 2000000 + index: valid NANP numbers. */
export function aniOf(index: number): string {
  return `+1415${ANI_BASE + index}`;
}

/** The same number in SQL, for generate_series(…) as i. */
export const ANI_SQL = `'+1415' || (${ANI_BASE} + i)::text`;

/** 30 % of callers are known to the CRM. */
export function hasCrmId(index: number): boolean {
  return index % 10 < 3;
}
export const HAS_CRM_ID_SQL = "i % 10 < 3";

export function crmIdOf(index: number): string {
  return `CRM-${index}`;
}
export const CRM_ID_SQL = `'CRM-' || i::text`;

/** A stable customer id per account and index, so a later seed can extend the same population. */
export function customerIdSql(accountId: string): string {
  return `md5('${accountId}/' || i::text)::uuid`;
}
export const CUSTOMER_ID_SQL = customerIdSql(BENCH_ACCOUNT_ID);

/** 25 % of callers left a topic open; 20 % have variables stored. */
export const HAS_OPEN_INTENT_SQL = "i % 4 = 0";
export const HAS_VARIABLES_SQL = "i % 5 = 0";

/** New callers dial from +1628, a block the population never uses. */
export function newCallerAni(serial: number): string {
  return `+1628${ANI_BASE + (serial % 8_000_000)}`;
}

/**
 * The numbers callers dial: a contact centre's handful of lines, the same for
 * every caller, the main line most often. Sent as identity_hints.dnis.
 */
export const DIALLED_NUMBERS = ["+14155550100", "+14155550101", "+18885550102", "+12125550103"] as const;
/** Cumulative shares of DIALLED_NUMBERS: 55 %, 25 %, 15 %, 5 %. */
const DIALLED_SHARES = [0.55, 0.8, 0.95, 1];

/** The dialled number for a uniform draw u in [0, 1). */
export function dialledNumberOf(u: number): string {
  const at = DIALLED_SHARES.findIndex((share) => u < share);
  return DIALLED_NUMBERS[at === -1 ? DIALLED_NUMBERS.length - 1 : at];
}

/** The number seeded caller i last dialled, in SQL: each line in turn. */
export const DNIS_SQL = `(array[${DIALLED_NUMBERS.map((n) => `'${n}'`).join(", ")}])[1 + i % ${DIALLED_NUMBERS.length}]`;

/**
 * Callers added by real calls in the growth phase dial from +1650, a block
 * neither the seed nor the measured phases' new callers use; 30 % give a CRM id.
 */
export function grownCallerAni(serial: number): string {
  return `+1650${ANI_BASE + (serial % 8_000_000)}`;
}

export function grownCrmIdOf(serial: number): string | undefined {
  return hasCrmId(serial) ? `CRM-G-${serial}` : undefined;
}
