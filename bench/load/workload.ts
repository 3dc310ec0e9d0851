import {
  aniOf,
  BENCH_ACCOUNT_ID,
  crmIdOf,
  dialledNumberOf,
  grownCallerAni,
  grownCrmIdOf,
  hasCrmId,
  newCallerAni,
} from "./population.ts";

// The simulated calls: 80 % of callers come from the population (the seeded
// callers and those the growth phase added by real calls, uniformly: the least
// cache-friendly choice), 20 % dial from numbers never seen before. Every call
// names the line it dialled (one of a handful) and is a start and then an end
// with an intent and three variables. A seeded generator makes runs repeatable.

export interface SimulatedCall {
  readonly callId: string;
  readonly ani: string;
  /** The dialled number, sent as identity_hints.dnis. */
  readonly dnis: string;
  /** Sent as external_ids {crm_id} when the caller is known to the CRM. */
  readonly crmId: string | undefined;
  /** Sent as telco {line_type: "mobile"} for half of the calls. */
  readonly mobile: boolean;
  readonly intent: string;
  readonly intentStatus: "open" | "resolved";
  readonly variables: Readonly<Record<string, string>>;
  readonly idempotencyKey: string;
}

export interface Workload {
  next(): SimulatedCall;
  /** A call from the next caller of the growth phase: a number never seen, which becomes a customer. */
  nextGrowth(): SimulatedCall;
  /** The account the callers belong to: the SQL seed's, or one made through the admin API. */
  readonly accountId: string;
  /** Callers seeded in SQL; grows when the benchmark seeds more. */
  population: number;
  /**
   * Callers the growth phase has called from, drawn from once they exist. One
   * whose first call failed may be unknown when drawn: it is created then.
   */
  readonly grown: number;
}

const INTENTS = ["billing_question", "delivery_status", "plan_change", "address_change", "cancel_subscription"];
const SENTIMENTS = ["positive", "neutral", "negative"];
const LANGUAGES = ["en", "es", "fr"];

export function createWorkload(options: {
  population: number;
  runTag: string;
  seed?: number;
  accountId?: string;
}): Workload {
  const random = mulberry32(options.seed ?? 20_261_122);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  let serial = 0;
  let grown = 0;
  let newCallers = Math.floor(random() * 1_000_000);

  const call = (ani: string, crmId: string | undefined): SimulatedCall => {
    serial++;
    const intent = pick(INTENTS);
    return {
      callId: `bench-${options.runTag}-${serial}`,
      ani,
      dnis: dialledNumberOf(random()),
      crmId,
      mobile: random() < 0.5,
      intent,
      intentStatus: random() < 0.8 ? "resolved" : "open",
      variables: { last_topic: intent, sentiment: pick(SENTIMENTS), preferred_language: pick(LANGUAGES) },
      idempotencyKey: `end-${options.runTag}-${serial}`,
    };
  };

  const workload: Workload = {
    accountId: options.accountId ?? BENCH_ACCOUNT_ID,
    population: options.population,
    get grown() {
      return grown;
    },
    next() {
      const known = random() < 0.8;
      const index = Math.floor(random() * (workload.population + grown));
      if (!known) return call(newCallerAni(newCallers++), undefined);
      if (index < workload.population) return call(aniOf(index), hasCrmId(index) ? crmIdOf(index) : undefined);
      const serialOfGrown = index - workload.population;
      return call(grownCallerAni(serialOfGrown), grownCrmIdOf(serialOfGrown));
    },
    nextGrowth() {
      const serialOfGrown = grown++;
      return call(grownCallerAni(serialOfGrown), grownCrmIdOf(serialOfGrown));
    },
  };
  return workload;
}

/** Callers the population holds: seeded and grown by real calls. */
export function customersOf(workload: Workload): number {
  return workload.population + workload.grown;
}

/** A small, fast, seedable generator (public domain). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
