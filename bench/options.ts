import { parseArgs } from "node:util";

// The command line of `npm run bench`, read once into a frozen object.

export interface BenchOptions {
  readonly customers: number;
  /**
   * How the callers get there: "api" (the default) by calls through the service on a freshly migrated
   * database, nothing analyzed, as a deployment lives; "sql" by bulk INSERTs, then VACUUM (FREEZE, ANALYZE),
   * before the server starts: fast for large populations, a state no deployment is in.
   */
  readonly seed: "api" | "sql";
  /** Callers added by real calls through the service before the measured phases. */
  readonly growth: number;
  readonly scaleTo: number | undefined;
  readonly duration: number;
  readonly warmup: number;
  readonly rate: number;
  readonly concurrency: number;
  readonly connections: number;
  readonly keys: number;
  readonly soak: number;
  readonly soakRate: number;
  readonly keep: boolean;
  readonly cpuProf: boolean;
  /** Seconds of each overload phase; 0 skips them. */
  readonly overloadDuration: number;
  readonly recovery: number;
  /** The service's admission control, for the A/B of the limiter. */
  readonly limiter: "on" | "off";
  /** The two-instance phase (PostgreSQL and Redis only). */
  readonly scaleOut: "on" | "off";
  /** A checkout of other code: the run becomes a same-run A/B of that code (A) against this one (B). */
  readonly against: string | undefined;
  /** Rounds of the A/B, each measuring both sides in turn (AB, then BA, …). */
  readonly abRounds: number;
}

/** ANIs are +1415 followed by 2000000 + index: seven digits leave room for 8 000 000 callers. */
export const MAX_CUSTOMERS = 8_000_000;

export const USAGE = `Usage: npm run bench -- [options]

  --customers N      callers in the account before the measured phases (default 10000)
  --seed api|sql     how they get there: api (default), by calls through the service on a freshly
                     migrated database with nothing analyzed, as a deployment lives; sql, by bulk INSERTs
                     and VACUUM (FREEZE, ANALYZE) before the server starts: fast for large populations,
                     a state no deployment is in (the report says which)
  --growth N         new callers who call the service for real before the measured phases (default 2000)
  --scale-to N       grow the population to N after the open-loop runs and repeat them
  --duration S       seconds measured in each phase (default 20)
  --warmup S         unmeasured seconds before each phase (default 2)
  --rate R           offered calls/s of the fixed open-loop point (besides 50 % and 80 % of the
                     closed-loop calls/s); each call is a start and an end (default 200)
  --concurrency C    calls in flight in the closed-loop phases and the ceilings (default 16)
  --connections N    keep-alive connections of the REST pool client model (default 32)
  --keys N           API keys created and rotated over (default 30)
  --soak S           extra open-loop phase of S seconds for memory growth (default 0: none)
  --soak-rate R      offered calls/s during the soak (default: --rate)
  --overload-duration S
                     seconds of each overload phase: 0.5, 0.8, 1.5 and 3 × C per client model, C being the
                     closed-loop calls/s of the same run (default 10; 0: none)
  --recovery S       seconds at 0.5 × C after each burst, to time the recovery (default 10)
  --limiter on|off   the service's admission control (ADMISSION_CONTROL), for an A/B (default on)
  --scale-out on|off two instances on one account (PostgreSQL, Redis at REDIS_URL or
                     redis://127.0.0.1:6379) against one, at C in flight (default on)
  --against DIR      a same-run A/B instead of the full run: DIR is a checkout of other code with its
                     node_modules (git worktree add DIR <commit> && npm install there); each round
                     starts that code's server (A) and this one's (B) in turn, on databases of their
                     own seeded alike, and measures both closed loops and the open loops at 50 % of
                     the first closed loop's calls/s (PostgreSQL only)
  --ab-rounds N      rounds of the A/B, alternating which side goes first (default 3)
  --keep             keep the benchmark database (PostgreSQL) or data directory (embedded)
  --cpu-prof         profile the server process and list its hottest functions
  --help             this text

The database is PostgreSQL when DATABASE_URL is set (a fresh database is created on that server),
otherwise the embedded PGlite in a fresh directory bench/.data-<timestamp>.`;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export function parseOptions(args: readonly string[]): BenchOptions | "help" {
  try {
    return readOptions(args);
  } catch (error) {
    // parseArgs reports an unknown or malformed flag with a TypeError of its own.
    if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) throw new UsageError((error as Error).message);
    throw error;
  }
}

function readOptions(args: readonly string[]): BenchOptions | "help" {
  const { values } = parseArgs({
    args: [...args],
    strict: true,
    options: {
      customers: { type: "string", default: "10000" },
      seed: { type: "string", default: "api" },
      growth: { type: "string", default: "2000" },
      "scale-to": { type: "string" },
      duration: { type: "string", default: "20" },
      warmup: { type: "string", default: "2" },
      rate: { type: "string", default: "200" },
      concurrency: { type: "string", default: "16" },
      connections: { type: "string", default: "32" },
      keys: { type: "string", default: "30" },
      soak: { type: "string", default: "0" },
      "soak-rate": { type: "string" },
      "overload-duration": { type: "string", default: "10" },
      recovery: { type: "string", default: "10" },
      limiter: { type: "string", default: "on" },
      "scale-out": { type: "string", default: "on" },
      against: { type: "string" },
      "ab-rounds": { type: "string", default: "3" },
      keep: { type: "boolean", default: false },
      "cpu-prof": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) return "help";
  const problems: string[] = [];
  const number = (name: string, raw: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER) => {
    if (raw === undefined) return undefined;
    const value = Number(raw.replaceAll("_", ""));
    if (!Number.isFinite(value) || value < min || value > max) {
      problems.push(`--${name} must be a number from ${min} to ${max}`);
      return min;
    }
    return value;
  };
  const customers = Math.floor(number("customers", values.customers, 1, MAX_CUSTOMERS)!);
  const scaleTo = number("scale-to", values["scale-to"], 1, MAX_CUSTOMERS);
  if (scaleTo !== undefined && scaleTo <= customers) problems.push("--scale-to must be larger than --customers");
  if (values.limiter !== "on" && values.limiter !== "off") problems.push("--limiter must be on or off");
  if (values.seed !== "api" && values.seed !== "sql") problems.push("--seed must be api or sql");
  // The larger population is added in SQL, to the SQL seed's account.
  if (scaleTo !== undefined && values.seed !== "sql") problems.push("--scale-to needs --seed sql");
  if (values["scale-out"] !== "on" && values["scale-out"] !== "off") problems.push("--scale-out must be on or off");
  const options: BenchOptions = Object.freeze({
    customers,
    seed: values.seed === "sql" ? "sql" : "api",
    growth: Math.floor(number("growth", values.growth, 0, 1_000_000)!),
    scaleTo: scaleTo === undefined ? undefined : Math.floor(scaleTo),
    duration: number("duration", values.duration, 1, 3600)!,
    warmup: number("warmup", values.warmup, 0, 600)!,
    rate: number("rate", values.rate, 1, 20_000)!,
    concurrency: Math.floor(number("concurrency", values.concurrency, 1, 1024)!),
    connections: Math.floor(number("connections", values.connections, 1, 1024)!),
    keys: Math.floor(number("keys", values.keys, 1, 1000)!),
    soak: number("soak", values.soak, 0, 24 * 3600)!,
    soakRate: number("soak-rate", values["soak-rate"] ?? values.rate, 1, 20_000)!,
    keep: values.keep,
    cpuProf: values["cpu-prof"],
    overloadDuration: number("overload-duration", values["overload-duration"], 0, 3600)!,
    recovery: number("recovery", values.recovery, 1, 3600)!,
    limiter: values.limiter === "off" ? "off" : "on",
    against: values.against,
    abRounds: Math.floor(number("ab-rounds", values["ab-rounds"], 1, 20)!),
    scaleOut: values["scale-out"] === "off" ? "off" : "on",
  });
  if (problems.length > 0) throw new UsageError(problems.join("\n"));
  return options;
}
