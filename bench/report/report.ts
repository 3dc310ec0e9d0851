import { isOverloaded } from "../load/loop-result.ts";
import { DISTURBED_ABOVE_PERCENT, otherCpuPercent } from "../phases/resources.ts";
import { cpuPerCall } from "./cpu-per-call.ts";
import type { Analysis, BenchResults, PhaseResult, ProfileSummary, SeedRecord, TargetCheck } from "./results.ts";
import { formatScaleOut } from "./scale-out-report.ts";
import { fixed, formatTable, grouped } from "./table.ts";

// The report on standard output: what ran where, latency, throughput and
// resources per phase, the ceilings, scale, memory, the targets, and where
// the server's CPU went when it was profiled.

export function formatReport(results: BenchResults, analysis: Analysis, targets: readonly TargetCheck[], file: string) {
  const { machine, options } = results;
  const disturbed = (phase: PhaseResult) =>
    otherCpuPercent(phase.resources, machine.cpuCount) > DISTURBED_ABOVE_PERCENT;
  const out: string[] = [];
  out.push(
    `Caller Context benchmark, ${results.startedAt}`,
    `machine:  ${machine.cpuCount} × ${machine.cpuModel}, ${machine.totalMemoryGb} GB, ${machine.os}, Node ${machine.node}`,
    `database: ${machine.database.kind}, ${machine.database.version}`,
    `code:     ${
      results.source === undefined
        ? "unknown"
        : `commit ${results.source.commit}${results.source.changedFiles > 0 ? ` with ${results.source.changedFiles} changed files outside bench/` : ""}`
    }`,
    `before:   machine ${results.machineBusyBeforePercent.toFixed(0)} % busy (all cores) before the run` +
      (results.machineBusyBeforePercent > 15 ? ": other work was running, figures are disturbed" : ""),
    `server:   log level ${results.server.logLevel}, rate-limit windows: ${results.server.rateLimitWindows}, DB pool ${results.server.dbPoolSize}`,
    `options:  ${options.customers} customers, ${options.duration} s per phase (+${options.warmup} s warm-up), ` +
      `${options.rate} calls/s open loop, ${options.concurrency} in flight closed loop, ${options.keys} API keys`,
    `seeding:  ${results.seeding.map((s) => `${grouped(s.to - s.from)} callers in ${s.seconds.toFixed(1)} s ${seedMethod(s)}`).join("; ")}`,
    `growth:   ${
      results.growth === undefined
        ? "none (--growth 0)"
        : `${grouped(results.growth.customersAdded)} customers added by ${grouped(results.growth.calls)} real calls over ${results.growth.via} in ${results.growth.seconds.toFixed(1)} s${growthFailures(results.growth.errors)}`
    }`,
    `pgbench:  ${
      "skipped" in results.pgbench
        ? `skipped (${results.pgbench.skipped})`
        : `${results.pgbench.tps.toFixed(0)} TPC-B transactions/s (scale ${results.pgbench.scale}, ${results.pgbench.clients} clients, ` +
          `${results.pgbench.threads} threads, prepared, ${results.pgbench.seconds} s)`
    }`,
    "",
    "Latency (ms; open loop: from the scheduled send time)",
    formatTable(
      ["phase", "via", "customers", "start p50", "p95", "p99", "max", "end p50", "p95", "p99", "max", "errors"],
      results.phases.map((phase) => [
        isOverloaded(phase.loop) ? `${phase.title} *` : phase.title,
        phase.via,
        phase.customers === undefined ? "-" : grouped(phase.customers),
        ...latencies(phase, "start"),
        ...latencies(phase, "end"),
        String(phase.loop.start.errors + phase.loop.end.errors),
      ]),
      "llrrrrrrrrrr",
    ),
    ...(results.phases.some((phase) => isOverloaded(phase.loop))
      ? [
          "* overloaded: the service completed less than 95 % of the offered calls/s, or more than 0.25 s worth",
          "  of calls was still queued when the timetable ended; these latencies measure the queue in front of it.",
        ]
      : []),
    "",
    "Throughput and resources (CPU in % of one core: server, client, PostgreSQL processes, anything else; machine: % of all cores;",
    " server waits: % of the phase the server's main thread was ready to run but waited for a core)",
    formatTable(
      [
        "phase",
        "via",
        "calls/s",
        "requests/s",
        "call p99",
        "send lag p99",
        "server RSS max MB",
        "server CPU",
        "server waits",
        "client CPU",
        "PG CPU",
        "other CPU",
        "machine CPU",
      ],
      results.phases.map((phase) => [
        phase.title,
        phase.via,
        fixed(phase.loop.callsPerSecond, 1),
        fixed(phase.loop.requestsPerSecond, 1),
        fixed(phase.loop.call.p99Ms),
        fixed(phase.loop.sendLag?.p99Ms),
        fixed(phase.resources.serverRssMaxMb, 0),
        fixed(phase.resources.serverCpuPercent, 0),
        fixed(phase.resources.serverRunQueueWaitPercent, 0),
        fixed(phase.resources.clientCpuPercent, 0),
        fixed(phase.resources.postgresCpuPercent, 0),
        `${fixed(otherCpuPercent(phase.resources, machine.cpuCount), 0)}${disturbed(phase) ? " !" : ""}`,
        fixed(phase.resources.machineCpuPercent, 0),
      ]),
      "llrrrrrrrrrrr",
    ),
    ...(results.phases.some(disturbed)
      ? [
          `! disturbed: other work on the machine took more than ${DISTURBED_ABOVE_PERCENT} % of a core during the phase;`,
          "  its figures are not the service's alone. Run again on an idle machine.",
        ]
      : []),
    "",
    "CPU per completed call (ms; server: the service or the bare route; client: this process, which runs the store functions in the DB phases)",
    "and database blocks touched per call (PostgreSQL's count for the database, every session; counted, not timed)",
    formatTable(
      ["phase", "via", "calls/s", "server", "PostgreSQL", "client", "total", "DB blocks"],
      results.phases.map((phase) => {
        const cpu = cpuPerCall(phase);
        return [
          phase.title,
          phase.via,
          fixed(phase.loop.callsPerSecond, 1),
          fixed(cpu?.serverMs),
          fixed(cpu?.postgresMs),
          fixed(cpu?.clientMs),
          fixed(cpu?.totalMs),
          fixed(phase.blocksPerCall, 0),
        ];
      }),
      "llrrrrrr",
    ),
    "",
    "Against the ceilings",
    ...analysis.ceilingRatios.map((ratio) => `  ${ratio.text}`),
  );
  if (analysis.scale !== undefined) {
    out.push(
      "",
      `Scale: ${grouped(analysis.scale.from)} → ${grouped(analysis.scale.to)} customers (open loop, p99 ms)`,
    );
    out.push(
      formatTable(
        ["via", "operation", `p99 at ${grouped(analysis.scale.from)}`, `p99 at ${grouped(analysis.scale.to)}`, "ratio"],
        analysis.scale.rows.map((row) => [
          row.via,
          row.operation,
          fixed(row.p99Before),
          fixed(row.p99After),
          row.overloaded ? `${fixed(row.ratio)} *` : fixed(row.ratio),
        ]),
        "llrrr",
      ),
    );
  }
  if (results.overload.length > 0) {
    out.push(
      "",
      "Overload (open loop at multiples of C, the closed-loop calls/s of the same run; refusals and recovery from the scheduled send)",
      formatTable(
        [
          "via",
          "limiter",
          "C",
          "load",
          "goodput calls/s",
          "vs 0.8 × C",
          "refused",
          "refusal p99",
          "from send",
          "accepted start p99",
          "other failures",
          "recovery s",
        ],
        results.overload.flatMap((run) =>
          run.bursts.map((burst) => [
            run.via,
            run.limiter,
            fixed(run.capacityCallsPerSecond, 1),
            `${burst.factor} × C`,
            fixed(burst.goodputCallsPerSecond, 1),
            `${fixed((burst.goodputCallsPerSecond / run.referenceGoodputCallsPerSecond) * 100, 0)} %`,
            String(burst.refused),
            fixed(burst.refusalP99Ms),
            fixed(burst.refusalFromSendP99Ms),
            fixed(burst.acceptedStartP99Ms),
            String(burst.failedOtherwise),
            burst.recoverySeconds === undefined ? `> ${run.recoveryWindowSeconds}` : String(burst.recoverySeconds),
          ]),
        ),
        "llrlrrrrrrrr",
      ),
    );
  }
  out.push(...formatScaleOut(results));
  const { memory } = analysis;
  out.push(
    "",
    `Memory: server RSS ${fixed(results.serverRssAfterStartMb, 0)} MB after start, ` +
      `${fixed(memory.maxRssMb, 0)} MB at most under load`,
  );
  if (memory.soak !== undefined) {
    const soak = memory.soak;
    out.push(
      `  soak ${soak.seconds} s: ${soak.startMb.toFixed(1)} MB → ${soak.endMb.toFixed(1)} MB (${soak.growthPercent.toFixed(1)} %)`,
    );
  }
  out.push(
    "",
    "Targets",
    formatTable(
      ["target", "measured", "result"],
      targets.map((t) => [t.target, t.measured, verdict(t)]),
      "lll",
    ),
  );
  const errors = results.phases.filter((phase) => phase.loop.start.errors + phase.loop.end.errors > 0);
  if (errors.length > 0) {
    out.push("", "Errors");
    for (const phase of errors) {
      for (const operation of ["start", "end"] as const) {
        const { errorsByKind, errorExamples } = phase.loop[operation];
        for (const [kind, count] of Object.entries(errorsByKind)) {
          const example = errorExamples[kind];
          const customers = phase.customers === undefined ? "" : ` (${grouped(phase.customers)} customers)`;
          const detail = example && example !== kind ? ` (${example})` : "";
          out.push(`  ${phase.title}${customers}, ${phase.via} ${operation}: ${count} × ${kind}${detail}`);
        }
      }
    }
  }
  const warnings = Object.entries(results.serverWarnings);
  if (warnings.length > 0) {
    out.push("", "Server log lines at warn or above");
    for (const [message, count] of warnings) out.push(`  ${count} × ${message}`);
  }
  if (results.profile !== undefined) out.push("", ...profileLines(results.profile));
  out.push("", `Results: ${file}`);
  return `${out.join("\n")}\n`;
}

/** Where the server's CPU went, as `--cpu-prof` profiled it: its hottest functions and packages. */
export function profileLines(profile: ProfileSummary): string[] {
  return [
    `Server CPU profile: ${(profile.busyMs / 1000).toFixed(1)} s busy, ${(profile.idleMs / 1000).toFixed(1)} s idle (self time, % of busy)`,
    formatTable(
      ["function", "self ms", "%"],
      profile.topFunctions.map((e) => [e.name, fixed(e.selfMs, 0), fixed(e.percent, 1)]),
    ),
    "",
    formatTable(
      ["package or file", "self ms", "%"],
      profile.topModules.map((e) => [e.name, fixed(e.selfMs, 0), fixed(e.percent, 1)]),
    ),
  ];
}

function growthFailures(errors: Readonly<Record<string, number>>): string {
  const kinds = Object.entries(errors);
  return kinds.length === 0 ? "" : `; failed: ${kinds.map(([kind, n]) => `${n} × ${kind}`).join(", ")}`;
}

function verdict(check: TargetCheck): string {
  if (check.met !== undefined) return check.met ? "MET" : "NOT MET";
  return check.notApplicable ? "n/a" : "not measured";
}

function latencies(phase: PhaseResult, operation: "start" | "end"): string[] {
  const summary = phase.loop[operation].latency;
  return [fixed(summary.p50Ms), fixed(summary.p95Ms), fixed(summary.p99Ms), fixed(summary.maxMs)];
}

/** How a population got there, said next to every figure measured on it. */
function seedMethod(seed: SeedRecord): string {
  return seed.via === "api"
    ? "(through the service's API, nothing analyzed by the benchmark)"
    : "(SQL bulk INSERTs, then VACUUM (FREEZE, ANALYZE): a state no deployment is in)";
}
