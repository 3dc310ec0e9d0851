import { aniOf, crmIdOf, hasCrmId, newCallerAni } from "./population.ts";

// The simulated calls: 80 % of callers come from the seeded population
// (uniformly, the least cache-friendly choice), 20 % dial from numbers never
// seen before. Every call is a start and then an end with an intent and a
// few variables. A seeded generator makes runs repeatable.

export interface SimulatedCall {
  readonly callId: string;
  readonly ani: string;
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
  /** Callers the population holds now; grows when the benchmark seeds more. */
  population: number;
}

const INTENTS = ["billing_question", "delivery_status", "plan_change", "address_change", "cancel_subscription"];
const SENTIMENTS = ["positive", "neutral", "negative"];
const LANGUAGES = ["en", "es", "fr"];

export function createWorkload(options: { population: number; runTag: string; seed?: number }): Workload {
  const random = mulberry32(options.seed ?? 20_261_122);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  let serial = 0;
  let newCallers = Math.floor(random() * 1_000_000);
  const workload: Workload = {
    population: options.population,
    next() {
      serial++;
      const known = random() < 0.8;
      const index = Math.floor(random() * workload.population);
      const intent = pick(INTENTS);
      const variables: Record<string, string> = { last_topic: intent, sentiment: pick(SENTIMENTS) };
      if (random() < 0.5) variables.preferred_language = pick(LANGUAGES);
      return {
        callId: `bench-${options.runTag}-${serial}`,
        ani: known ? aniOf(index) : newCallerAni(newCallers++),
        crmId: known && hasCrmId(index) ? crmIdOf(index) : undefined,
        mobile: random() < 0.5,
        intent,
        intentStatus: random() < 0.8 ? "resolved" : "open",
        variables,
        idempotencyKey: `end-${options.runTag}-${serial}`,
      };
    },
  };
  return workload;
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
