import type { LoopResult } from "../load/loop-result.ts";
import type { BenchOptions } from "../options.ts";
import type { ResourceUsage } from "../phases/resources.ts";

// The types of a run's results, in one place: what the results file holds
// (bench/results/<start time>.json), the phases' records it is made of, and
// the figures and targets derived from them. Types only: the phases, the
// analysis and the report all read them, and none of them imports another's
// module for a type.

export interface BenchResults {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly options: BenchOptions;
  readonly machine: MachineDescription;
  /** All cores, over one second before the run: other work on the machine disturbs every figure. */
  readonly machineBusyBeforePercent: number;
  readonly source: SourceVersion | undefined;
  readonly server: Readonly<Record<string, string>>;
  /** Server RSS once it had started and answered the admin API, before any load. */
  readonly serverRssAfterStartMb: number | undefined;
  readonly seeding: readonly SeedRecord[];
  /** Customers added by real calls before the measured phases; undefined with --growth 0. */
  readonly growth: GrowthRecord | undefined;
  /** pgbench TPC-B on the same PostgreSQL server, or why it was skipped. */
  readonly pgbench: PgbenchAnchor;
  readonly phases: readonly PhaseResult[];
  /** Bursts past the closed-loop capacity, per protocol. */
  readonly overload: readonly OverloadResult[];
  /** Two instances on one account against one; absent when skipped, with the reason in scaleOutSkipped. */
  readonly scaleOut?: ScaleOutResult;
  readonly scaleOutSkipped?: string;
  readonly serverWarnings: Readonly<Record<string, number>>;
  readonly profile: ProfileSummary | undefined;
}

export interface SourceVersion {
  readonly commit: string;
  readonly changedFiles: number;
}

export interface MachineDescription {
  readonly cpuModel: string;
  readonly cpuCount: number;
  readonly totalMemoryGb: number;
  readonly os: string;
  readonly node: string;
  readonly database: { readonly kind: string; readonly version: string };
}

export interface SeedRecord {
  readonly from: number;
  readonly to: number;
  readonly seconds: number;
  /** "api": calls through the service, nothing analyzed; "sql": bulk INSERTs, then VACUUM (FREEZE, ANALYZE). */
  readonly via: "api" | "sql";
}

export interface GrowthRecord {
  /** Calls attempted, each from a number never seen before. */
  readonly calls: number;
  /** Distinct customer_refs answered: the customers these calls created. */
  readonly customersAdded: number;
  /** Failed requests by kind (a call whose start failed counts once). */
  readonly errors: Readonly<Record<string, number>>;
  readonly seconds: number;
  readonly via: string;
}

export type PgbenchAnchor =
  | {
      readonly tps: number;
      readonly clients: number;
      readonly threads: number;
      readonly scale: number;
      readonly seconds: number;
    }
  | { readonly skipped: string };

export type PhaseKey =
  | "ceiling.db"
  | "ceiling.http"
  | "floor.db"
  | "floor.http"
  | "open.rest"
  | "open.rest-new"
  | "open.grpc"
  | "closed.rest"
  | "closed.rest-new"
  | "closed.grpc"
  | "scaled.rest"
  | "scaled.grpc"
  | "soak"
  | "burst.rest"
  | "burst.rest-new"
  | "burst.grpc";

export interface PhaseResult {
  readonly key: PhaseKey;
  readonly title: string;
  /** Open loops at a load point: "50 %" or "80 %" of the closed-loop calls/s, "fixed" (--rate); floors add the protocol. */
  readonly point?: string;
  /** REST, gRPC, store (no HTTP), bare HTTP, or REST+gRPC. */
  readonly via: string;
  /** Seeded callers; undefined for the bare HTTP server. */
  readonly customers: number | undefined;
  readonly loop: LoopResult;
  readonly resources: ResourceUsage;
  /** Database blocks touched (PostgreSQL's count, every session) per call ended; undefined without a database. */
  readonly blocksPerCall?: number;
}

export interface OverloadResult {
  readonly via: string;
  readonly limiter: "on" | "off";
  readonly capacityCallsPerSecond: number;
  readonly baselineStartP99Ms: number;
  readonly referenceGoodputCallsPerSecond: number;
  readonly recoveryWindowSeconds: number;
  /** Starts refused at 0.5 and 0.8 × C, before any burst: load the service can carry. */
  readonly refusedWithinCapacity: number;
  /** A 64-caller closed loop and 200 starts at once at an idle instance, before the open loops. */
  readonly withinCapacity: WithinCapacityResult;
  readonly bursts: readonly BurstResult[];
  /** The acknowledged writes of every phase here, read back once the server has stopped. */
  readonly writes?: WriteReadBack;
}

export interface WithinCapacityResult {
  readonly closedLoopCallers: number;
  readonly closedLoopCallsPerSecond: number;
  readonly closedLoopRefused: number;
  readonly closedLoopFailedOtherwise: number;
  readonly idleBurstStarts: number;
  readonly idleBurstRefused: number;
  readonly idleBurstFailedOtherwise: number;
  /** From the first send to the last answer. */
  readonly idleBurstSeconds: number;
}

export interface BurstResult {
  readonly factor: number;
  readonly offeredCallsPerSecond: number;
  /** Calls whose start and end both succeeded, per second. */
  readonly goodputCallsPerSecond: number;
  /** Starts refused with 503 / UNAVAILABLE. */
  readonly refused: number;
  /** Starts that failed otherwise (timeouts, resets). */
  readonly failedOtherwise: number;
  /** Starts and ends the client gave up on after its 10 s timeout. */
  readonly clientTimeouts: number;
  readonly refusalP99Ms: number;
  /** The same from the client's actual send: the client's own lag left out (a diagnosis, not the target). */
  readonly refusalFromSendP99Ms: number;
  readonly acceptedStartP99Ms: number;
  /** Seconds from the end of the burst until the start p99 was back; undefined: not within the recovery window. */
  readonly recoverySeconds: number | undefined;
  /** The start p99 of each second after the burst (a failed start counting as endless), to read a recovery by. */
  readonly recoveryP99sMs: readonly number[];
  /** The server's admission gauges during the burst. */
  readonly admission?: AdmissionSamples;
}

export interface AdmissionSamples {
  readonly samples: number;
  readonly limitMin: number;
  readonly limitMean: number;
  readonly limitMax: number;
  readonly inFlightMax: number;
  readonly queuedMax: number;
  /** Refusals between the first and the last sample, by reason (limit, queue_forecast, pressure, deadline). */
  readonly refusedByReason: Readonly<Record<string, number>>;
  /** The largest p99 of the server's event-loop delay over one sampling interval (prom-client resets it per scrape). */
  readonly loopDelayP99MaxMs: number;
}

export interface WriteReadBack {
  readonly startsAcknowledged: number;
  readonly startsShed: number;
  readonly startsTimedOut: number;
  readonly endsAcknowledged: number;
  /** Acknowledged starts with no call row. */
  readonly startsLost: number;
  /** Acknowledged ends whose call has no end recorded. */
  readonly endsLost: number;
  /** Starts refused by the admission control that left a call row. */
  readonly shedWithRow: number;
  /** Starts answered 503 by their time budget whose write landed all the same (a wrong answer). */
  readonly timedOutWithRow: number;
}

export interface ScaleOutResult {
  readonly oneInstanceCallsPerSecond: number;
  readonly twoInstanceCallsPerSecond: number;
  /** two / one. */
  readonly ratio: number;
  readonly perInstanceCallsPerSecond: readonly number[];
  /** Calls in flight over all instances, as in the one-instance closed loop. */
  readonly concurrency: number;
  readonly via: string;
  readonly customers: number;
  /** REDIS_URL of both instances, without a password. */
  readonly redis: string;
  readonly one: ScaleOutRun;
  readonly two: ScaleOutRun;
  readonly serverWarnings: Readonly<Record<string, number>>;
}

export interface ScaleOutRun {
  readonly instancesLoaded: number;
  readonly callsPerSecond: number;
  /** One closed loop per loaded instance, C split between them. */
  readonly perInstance: readonly LoopResult[];
  readonly cpu: PartiesCpu;
  /** CPU time per completed call, ms: all servers together, PostgreSQL, the client. */
  readonly cpuMsPerCall: { readonly servers: number; readonly postgres: number; readonly client: number };
  readonly lockWaits: LockWaitSummary;
}

export interface PartiesCpu {
  /** Per instance, % of one core (the second idles in the one-instance run). */
  readonly serversPercent: readonly number[];
  readonly clientPercent: number;
  readonly postgresPercent: number;
  /** CPU no measured process used: other work on the machine. */
  readonly otherPercent: number;
  /** % of all cores. */
  readonly machinePercent: number;
}

export interface LockWaitSummary {
  readonly samples: number;
  readonly intervalMs: number;
  /** Backends waiting for a lock (wait_event_type 'Lock', or a lock not granted in pg_locks), per sample. */
  readonly lockWaitingMean: number;
  readonly lockWaitingMax: number;
  /** Samples with at least one backend waiting for a lock, in %. */
  readonly samplesWithLockWaitPercent: number;
  /** Backends running a statement (state 'active'), per sample. */
  readonly activeMean: number;
  /** Active backends per sample by what they wait for ("CPU" when nothing), largest first. */
  readonly activeByWait: Readonly<Record<string, number>>;
  /** Why sampling stopped early, if it did. */
  readonly error?: string;
}

export interface ProfileSummary {
  readonly files: readonly string[];
  readonly busyMs: number;
  readonly idleMs: number;
  readonly topFunctions: readonly ProfileEntry[];
  readonly topModules: readonly ProfileEntry[];
}

export interface ProfileEntry {
  readonly name: string;
  readonly selfMs: number;
  readonly percent: number;
}

export interface Analysis {
  readonly ceilingRatios: readonly Ratio[];
  /** Phases during which other work took more than DISTURBED_ABOVE_PERCENT of a core. */
  readonly disturbedPhases: readonly string[];
  readonly scale?: { readonly from: number; readonly to: number; readonly rows: readonly ScaleRow[] };
  readonly memory: {
    /** The server's largest RSS over every phase that loaded it. */
    readonly maxRssMb?: number;
    readonly soak?: {
      readonly seconds: number;
      readonly startMb: number;
      readonly endMb: number;
      readonly growthPercent: number;
    };
  };
}

export interface Ratio {
  readonly text: string;
  /** Percent, or a plain factor for the scale ratios. */
  readonly value: number;
}

export interface ScaleRow {
  readonly via: string;
  readonly operation: "start" | "end";
  readonly p99Before: number;
  readonly p99After: number;
  readonly ratio: number;
  /** Either run was overloaded: the ratio compares backlogs. */
  readonly overloaded: boolean;
}

export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  /** undefined: not measured in this run, or not applicable (notApplicable). */
  readonly met: boolean | undefined;
  /** Measured, but the comparison means nothing here (an overloaded phase, another database). */
  readonly notApplicable?: boolean;
}

/** `--against`: the same-run A/B of two versions of the service. */
export interface CodeAbResult {
  readonly sides: readonly CodeAbSide[];
  readonly rounds: number;
  /** The open loops' offered calls/s: half of the run's first closed loops, the same for both sides. */
  readonly openRates: { readonly rest: number; readonly grpc: number };
  readonly runs: readonly CodeAbRun[];
}

export interface CodeAbSide {
  /** A: the checkout named by --against; B: this one. */
  readonly label: "A" | "B";
  readonly root: string;
  readonly commit: string | undefined;
  readonly databaseVersion: string;
}

/** One side's turn in one round. */
export interface CodeAbRun {
  readonly round: number;
  readonly label: "A" | "B";
  readonly phases: readonly PhaseResult[];
  /** The server's resident memory at the end of its turn. */
  readonly rssMb: number | undefined;
}
