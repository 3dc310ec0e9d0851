import { phaseOf } from "./analysis.ts";
import { cpuPerCall } from "./cpu-per-call.ts";
import type { CodeAbResult, CodeAbRun, PhaseKey } from "./results.ts";
import { fixed, formatTable, median } from "./table.ts";

// The A/B's report: each figure for A and for B, round by round and as the
// median of the rounds, and B's median over A's. Same-run rounds alternate
// which side goes first, so a drift of the machine falls on both sides.

interface Figure {
  readonly name: string;
  readonly of: (run: CodeAbRun) => number | undefined;
  readonly digits: number;
}

const cpu = (run: CodeAbRun, key: PhaseKey) => {
  const found = phaseOf(run, key);
  return found === undefined ? undefined : cpuPerCall(found);
};
const failed = (run: CodeAbRun) => run.phases.reduce((sum, p) => sum + p.loop.start.errors + p.loop.end.errors, 0);

const FIGURES: readonly Figure[] = [
  { name: "closed loop, REST: calls/s", of: (r) => phaseOf(r, "closed.rest")?.loop.callsPerSecond, digits: 0 },
  { name: "closed loop, gRPC: calls/s", of: (r) => phaseOf(r, "closed.grpc")?.loop.callsPerSecond, digits: 0 },
  { name: "closed REST: server CPU-ms/call", of: (r) => cpu(r, "closed.rest")?.serverMs, digits: 2 },
  { name: "closed gRPC: server CPU-ms/call", of: (r) => cpu(r, "closed.grpc")?.serverMs, digits: 2 },
  { name: "closed REST: PostgreSQL CPU-ms/call", of: (r) => cpu(r, "closed.rest")?.postgresMs, digits: 2 },
  { name: "closed gRPC: PostgreSQL CPU-ms/call", of: (r) => cpu(r, "closed.grpc")?.postgresMs, digits: 2 },
  { name: "open 50 %, REST: start p50 (ms)", of: (r) => phaseOf(r, "open.rest")?.loop.start.latency.p50Ms, digits: 1 },
  { name: "open 50 %, REST: start p99 (ms)", of: (r) => phaseOf(r, "open.rest")?.loop.start.latency.p99Ms, digits: 1 },
  { name: "open 50 %, gRPC: start p50 (ms)", of: (r) => phaseOf(r, "open.grpc")?.loop.start.latency.p50Ms, digits: 1 },
  { name: "open 50 %, gRPC: start p99 (ms)", of: (r) => phaseOf(r, "open.grpc")?.loop.start.latency.p99Ms, digits: 1 },
  { name: "closed REST: DB blocks/call", of: (r) => phaseOf(r, "closed.rest")?.blocksPerCall, digits: 0 },
  { name: "closed gRPC: DB blocks/call", of: (r) => phaseOf(r, "closed.grpc")?.blocksPerCall, digits: 0 },
  { name: "server RSS at the end of a turn (MB)", of: (r) => r.rssMb, digits: 0 },
  { name: "failed requests", of: failed, digits: 0 },
];

export function formatCodeAb(result: CodeAbResult, file: string): string {
  const side = (label: "A" | "B") => result.sides.find((s) => s.label === label);
  const runsOf = (label: "A" | "B") => result.runs.filter((run) => run.label === label);
  const rows = FIGURES.map((figure) => {
    const a = runsOf("A").map(figure.of);
    const b = runsOf("B").map(figure.of);
    const ma = median(a);
    const mb = median(b);
    return [
      figure.name,
      a.map((v) => fixed(v, figure.digits)).join(" / "),
      fixed(ma, figure.digits),
      b.map((v) => fixed(v, figure.digits)).join(" / "),
      fixed(mb, figure.digits),
      fixed(mb / ma, 2),
    ];
  });
  const name = (label: "A" | "B") => `${label}: ${side(label)?.commit ?? "?"} (${side(label)?.root})`;
  return [
    "",
    `Same-run A/B, ${result.rounds} rounds alternating the order (AB, BA, …)`,
    name("A"),
    name("B"),
    // Both sides need the same callers whatever their schema, so the A/B seeds in SQL.
    "each side's database seeded alike in SQL (bulk INSERTs, then VACUUM (FREEZE, ANALYZE)): a state no deployment is in",
    `open loops offered ${result.openRates.rest.toFixed(0)} calls/s over REST and ${result.openRates.grpc.toFixed(0)} over gRPC to both sides`,
    "",
    formatTable(["figure", "A, by round", "A median", "B, by round", "B median", "B / A"], rows),
    "",
    `Every figure: ${file}`,
    "",
  ].join("\n");
}
