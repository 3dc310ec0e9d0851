import { parseArgs } from "node:util";
import { clientModels } from "../load/client-models.ts";
import { runClosedLoop } from "../load/closed-loop.ts";
import { runOpenLoop } from "../load/open-loop.ts";
import { createRestDriver } from "../load/rest-load.ts";
import { createWorkload } from "../load/workload.ts";
import { sampleAdmission } from "../phases/admission-sampler.ts";
import { progress } from "../phases/phase.ts";
import { scopePostgresCpu } from "../phases/resources.ts";
import { refusalsWithinCapacity } from "../phases/within-capacity.ts";
import { fixed, formatTable, median } from "../report/table.ts";
import { createApiKeys } from "../service/api-keys.ts";
import { createBenchDatabase } from "../service/bench-database.ts";
import { seedPopulation } from "../service/seed.ts";
import { randomToken } from "../service/server-process.ts";
import { createService } from "../service/service.ts";
import { parseVariant } from "./variant.ts";

// `npm run bench:burst-ab -- --a "ADMISSION_CONTROL=on" --b "ADMISSION_CONTROL=off"`:
// a same-run A/B of two server settings, or two checkouts of the code
// (`--a-root DIR`), under bursts. C (REST closed loop, 16 in flight) is
// measured once; then each round starts a server with A and one with B, in
// alternating order (AB, BA, …), and offers each client model (bench/load/
// client-models.ts) `--factor` × C for `--seconds` after `--steady` seconds
// at 0.5 × C (whose start p99 is reported too). With `--within S` each model
// first runs the checks nothing should be refused under (a 64-caller closed
// loop for S seconds, 200 starts at once at an idle instance). A variant is
// NAME=value settings and Node flags (words starting with --, after `npm
// start`'s own: `--a="--max-semi-space-size=8"`).
// The machine's drift hits both variants alike; compare the variants within
// a round and their medians.
// Needs DATABASE_URL (a fresh database is created there).

const { values } = parseArgs({
  options: {
    a: { type: "string", default: "" },
    b: { type: "string", default: "" },
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "5" },
    factor: { type: "string", default: "3" },
    warmup: { type: "string", default: "5" },
    steady: { type: "string", default: "1" },
    customers: { type: "string", default: "10000" },
    within: { type: "string", default: "0" },
    "a-root": { type: "string" },
    "b-root": { type: "string" },
  },
});
const variants = [
  { name: "A", root: values["a-root"], ...parseVariant(values.a) },
  { name: "B", root: values["b-root"], ...parseVariant(values.b) },
];
const withinSeconds = Number(values.within);
/** Keep-alive connections of the REST pool client model, as in the full bench's default. */
const POOL_CONNECTIONS = 32;
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const factor = Number(values.factor);
const warmupSeconds = Number(values.warmup);
const steadySeconds = Number(values.steady);
const customers = Number(values.customers);
if (!process.env.DATABASE_URL) throw new Error("DATABASE_URL must name a PostgreSQL server");

interface BurstRow {
  readonly variant: string;
  readonly round: number;
  readonly via: string;
  readonly goodput: number;
  readonly refused: number;
  readonly refusalP99Ms: number;
  /** The same from the client's actual send (its own lag left out). */
  readonly refusalFromSendP99Ms: number;
  readonly acceptedP99Ms: number;
  readonly otherFailures: number;
  readonly serverCpu: number;
  readonly serverWaits: number;
  /** The worst p99 of the server's event-loop delay over a quarter second of the burst. */
  readonly loopDelayMs: number;
  /** How late the client itself sent starts (p99): a client too starved to keep its timetable shows here. */
  readonly clientLagMs: number;
  readonly machineCpu: number;
  /** The start p99 at 0.5 × C over the `--steady` seconds before the burst. */
  readonly steadyP99Ms: number;
  readonly serverRssMaxMb: number;
  /** Refused in the 64-caller closed loop and of the 200 starts at once at an idle instance; NaN: not run. */
  readonly closedLoopRefused: number;
  readonly idleBurstRefused: number;
  /** The service's refusals during the burst, by reason. */
  readonly refusedByReason: Readonly<Record<string, number>>;
  /** Where the limit, the calls in flight and the queue went during the burst. */
  readonly admissionGauges: string;
}

const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
scopePostgresCpu(stamp);
const database = await createBenchDatabase(process.env.DATABASE_URL, stamp);
const rows: BurstRow[] = [];
try {
  await seedPopulation(database, 0, customers);
  const workload = createWorkload({ population: customers, runTag: stamp });
  const adminToken = randomToken();
  const serviceWith = (variant: (typeof variants)[number]) =>
    createService({
      databaseEnv: database.env,
      adminToken,
      serverEnv: variant.env,
      nodeFlags: variant.nodeFlags,
      postgres: true,
      root: variant.root,
    });

  const first = serviceWith(variants[0]);
  await first.start();
  const capacity = await (async () => {
    const rest = createRestDriver(first.url, await createApiKeys(first.url, adminToken, 10), 16);
    try {
      return (await runClosedLoop(rest, workload, { concurrency: 16, durationSeconds: 5, warmupSeconds: 1 }))
        .callsPerSecond;
    } finally {
      await rest.close();
      await first.stop();
    }
  })();
  progress(`C = ${capacity.toFixed(1)} calls/s (REST closed loop, 16 in flight, variant A)`);

  for (let round = 1; round <= rounds; round++) {
    for (const variant of round % 2 === 1 ? variants : [...variants].reverse()) {
      const service = serviceWith(variant);
      await service.start();
      try {
        const keys = await createApiKeys(service.url, adminToken, 10);
        for (const model of clientModels(service.url, keys, POOL_CONNECTIONS)) {
          const via = model.via;
          const driver = model.driver();
          try {
            const withinSampled = sampleAdmission(service.metricsUrl);
            const within =
              withinSeconds > 0 ? await refusalsWithinCapacity(driver, workload, withinSeconds) : undefined;
            const withinAdmission = await withinSampled();
            if (within !== undefined && withinAdmission !== undefined) {
              progress(`    refused within capacity by reason: ${reasonsOf(withinAdmission.refusedByReason)}`);
            }
            if (warmupSeconds > 0) {
              await runClosedLoop(driver, workload, {
                concurrency: 16,
                durationSeconds: warmupSeconds,
                warmupSeconds: 0,
              });
            }
            const steady = await runOpenLoop(driver, workload, {
              callsPerSecond: 0.5 * capacity,
              durationSeconds: steadySeconds,
            });
            const finish = service.monitor.begin();
            const sampled = sampleAdmission(service.metricsUrl);
            const burst = await runOpenLoop(driver, workload, {
              callsPerSecond: factor * capacity,
              durationSeconds: seconds,
            });
            const usage = finish();
            const admission = await sampled();
            const refused = burst.refusals?.count ?? 0;
            rows.push({
              variant: variant.name,
              round,
              via,
              goodput: burst.callsPerSecond,
              refused,
              refusalP99Ms: burst.refusals?.p99Ms ?? Number.NaN,
              refusalFromSendP99Ms: burst.refusalsFromSend?.p99Ms ?? Number.NaN,
              acceptedP99Ms: burst.start.latency.p99Ms,
              otherFailures: burst.start.errors - refused + burst.end.errors,
              serverCpu: usage.serverCpuPercent ?? Number.NaN,
              serverWaits: usage.serverRunQueueWaitPercent ?? Number.NaN,
              loopDelayMs: admission?.loopDelayP99MaxMs ?? Number.NaN,
              clientLagMs: burst.sendLag?.p99Ms ?? Number.NaN,
              machineCpu: usage.machineCpuPercent,
              steadyP99Ms: steady.start.latency.p99Ms,
              serverRssMaxMb: usage.serverRssMaxMb ?? Number.NaN,
              closedLoopRefused: within?.closedLoopRefused ?? Number.NaN,
              idleBurstRefused: within?.idleBurstRefused ?? Number.NaN,
              refusedByReason: admission?.refusedByReason ?? {},
              admissionGauges:
                admission === undefined
                  ? "-"
                  : `limit ${admission.limitMin}..${admission.limitMax}, in flight ≤ ${admission.inFlightMax}, queued ≤ ${admission.queuedMax}`,
            });
            progress(`round ${round} ${variant.name} ${via}: ${describe(rows[rows.length - 1])}`);
          } finally {
            await driver.close();
          }
        }
      } finally {
        await service.stop();
      }
    }
  }
} finally {
  await database.dispose();
}

process.stdout.write(
  `\nBursts at ${factor} × C for ${seconds} s, ${rounds} rounds\n` +
    variants
      .map(
        (v) =>
          `${v.name}: ${
            [
              ...(v.root === undefined ? [] : [`code at ${v.root}`]),
              ...Object.entries(v.env).map(([k, val]) => `${k}=${val}`),
              ...v.nodeFlags,
            ].join(" ") || "(defaults)"
          }`,
      )
      .join("\n") +
    "\n\n" +
    formatTable(
      [
        "variant",
        "round",
        "via",
        "goodput calls/s",
        "refused",
        "refusal p99",
        "from send",
        "accepted p99",
        "other failures",
        "server CPU",
        "server waits",
        "loop delay",
        "client lag",
        "machine CPU",
        "0.5 × C p99",
        "RSS MB",
        "64-loop refused",
        "idle 200 refused",
      ],
      rows.map((r) => [
        r.variant,
        String(r.round),
        r.via,
        fixed(r.goodput, 1),
        String(r.refused),
        fixed(r.refusalP99Ms, 1),
        fixed(r.refusalFromSendP99Ms, 1),
        fixed(r.acceptedP99Ms, 1),
        String(r.otherFailures),
        fixed(r.serverCpu, 0),
        fixed(r.serverWaits, 0),
        fixed(r.loopDelayMs, 0),
        fixed(r.clientLagMs, 0),
        fixed(r.machineCpu, 0),
        fixed(r.steadyP99Ms, 1),
        fixed(r.serverRssMaxMb, 0),
        fixed(r.closedLoopRefused, 0),
        fixed(r.idleBurstRefused, 0),
      ]),
      "lllrrrrrrrrrrrrrrr",
    ) +
    "\n\nMedians\n" +
    formatTable(
      [
        "variant",
        "via",
        "goodput calls/s",
        "refusal p99",
        "from send",
        "accepted p99",
        "server waits",
        "0.5 × C p99",
        "64-loop refused",
        "idle 200 refused",
      ],
      variants.flatMap((v) =>
        [...new Set(rows.map((r) => r.via))].map((via) => {
          const mine = rows.filter((r) => r.variant === v.name && r.via === via);
          return [
            v.name,
            via,
            fixed(median(mine.map((r) => r.goodput)), 1),
            fixed(median(mine.map((r) => r.refusalP99Ms)), 1),
            fixed(median(mine.map((r) => r.refusalFromSendP99Ms)), 1),
            fixed(median(mine.map((r) => r.acceptedP99Ms)), 1),
            fixed(median(mine.map((r) => r.serverWaits)), 0),
            fixed(median(mine.map((r) => r.steadyP99Ms)), 1),
            fixed(median(mine.map((r) => r.closedLoopRefused)), 0),
            fixed(median(mine.map((r) => r.idleBurstRefused)), 0),
          ];
        }),
      ),
      "llrrrrrrrr",
    ) +
    "\n",
);

function describe(r: BurstRow): string {
  return `goodput ${fixed(r.goodput, 1)} calls/s, ${r.refused} refused (p99 ${fixed(r.refusalP99Ms, 1)} ms), accepted p99 ${fixed(r.acceptedP99Ms, 1)} ms, refused by reason ${reasonsOf(r.refusedByReason)}, from send p99 ${fixed(r.refusalFromSendP99Ms, 1)} ms, ${r.admissionGauges}, server waits ${fixed(r.serverWaits, 0)} %, loop delay ≤ ${fixed(r.loopDelayMs, 0)} ms, client lag ${fixed(r.clientLagMs, 0)} ms`;
}

function reasonsOf(refusedByReason: Readonly<Record<string, number>>): string {
  return (
    Object.entries(refusedByReason)
      .map(([reason, n]) => `${reason} ${n}`)
      .join(", ") || "-"
  );
}
