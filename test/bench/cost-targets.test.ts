import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { costTargets } from "../../bench/report/cost-targets.ts";
import { newestPostgresRun } from "../../bench/report/postgres-reference.ts";
import type { BenchResults, MachineDescription, PhaseResult } from "../../bench/report/results.ts";

// The cost targets the benchmark prints (MET / NOT MET), at their
// boundaries, from results shaped as a run writes them: each figure is the
// ratio or the limit the issue sets, and a floor that fell behind its own
// timetable is not a floor.

const MACHINE: MachineDescription = {
  cpuModel: "Test CPU",
  cpuCount: 2,
  totalMemoryGb: 24,
  os: "linux",
  node: "v24",
  database: { kind: "postgres", version: "15" },
};

interface PhaseSpec {
  readonly key: string;
  readonly point?: string;
  readonly callsPerSecond: number;
  readonly offered?: number;
  readonly startP99Ms?: number;
  /** % of one core: the service's and PostgreSQL's. */
  readonly serverCpu?: number;
  readonly postgresCpu?: number;
}

function phase(spec: PhaseSpec): PhaseResult {
  return {
    key: spec.key,
    title: spec.key,
    point: spec.point,
    via: "test",
    customers: 1000,
    loop: {
      callsPerSecond: spec.callsPerSecond,
      offeredCallsPerSecond: spec.offered,
      start: { latency: { p99Ms: spec.startP99Ms ?? 0 } },
    },
    resources: {
      serverCpuPercent: spec.serverCpu,
      clientCpuPercent: 10,
      postgresCpuPercent: spec.postgresCpu,
      machineCpuPercent: 50,
    },
  } as unknown as PhaseResult;
}

function results(phases: PhaseSpec[], options: { tps?: number; kind?: string } = {}): BenchResults {
  return {
    machine: { ...MACHINE, database: { kind: options.kind ?? "postgres", version: "15" } },
    pgbench: options.tps === undefined ? { skipped: "embedded" } : { tps: options.tps, clients: 16, threads: 2 },
    phases: phases.map(phase),
  } as unknown as BenchResults;
}

function check(checks: ReturnType<typeof costTargets>, starts: string) {
  const found = checks.find((c) => c.target.startsWith(starts));
  if (found === undefined) throw new Error(`no target starting "${starts}"`);
  return found;
}

describe("cost targets on PostgreSQL", () => {
  // REST exactly at every limit; gRPC just past each.
  const run = results(
    [
      // 150 calls/s: 22.5 % of a core is 1.5 ms a call, 37.5 % is 2.5 ms.
      { key: "closed.rest", callsPerSecond: 150, serverCpu: 22.5, postgresCpu: 37.5 },
      { key: "closed.grpc", callsPerSecond: 149, serverCpu: 22.5, postgresCpu: 37.5 },
      { key: "open.rest", point: "50 %", callsPerSecond: 75, offered: 75, startP99Ms: 20 },
      { key: "floor.db", point: "50 % REST", callsPerSecond: 75, offered: 75, startP99Ms: 8 },
      { key: "floor.http", point: "50 % REST", callsPerSecond: 75, offered: 75, startP99Ms: 2 },
      { key: "open.grpc", point: "50 %", callsPerSecond: 75, offered: 75, startP99Ms: 20.1 },
      { key: "floor.db", point: "50 % gRPC", callsPerSecond: 75, offered: 75, startP99Ms: 8 },
      { key: "floor.http", point: "50 % gRPC", callsPerSecond: 75, offered: 75, startP99Ms: 2 },
    ],
    { tps: 1000 },
  );
  const checks = costTargets(run);

  it("judges the closed loop against 0.15 × pgbench of the same run", () => {
    expect(check(checks, "REST closed-loop calls/s").met).toBe(true);
    expect(check(checks, "REST closed-loop calls/s").measured).toBe("0.150 × (150.0 calls/s vs 1000 tps)");
    expect(check(checks, "gRPC closed-loop calls/s").met).toBe(false);
  });

  it("holds each CPU per call to half of what it first was", () => {
    expect(check(checks, "REST closed loop: PostgreSQL CPU per call ≤ 2.5 ms").met).toBe(true);
    expect(check(checks, "REST closed loop: service CPU per call ≤ 1.5 ms").met).toBe(true);
    // The same share of a core over fewer calls is more per call.
    expect(check(checks, "gRPC closed loop: PostgreSQL CPU per call").met).toBe(false);
    expect(check(checks, "gRPC closed loop: service CPU per call").met).toBe(false);
  });

  it("holds the start p99 at half of C to twice bare HTTP's p99 plus the store path's", () => {
    expect(check(checks, "REST start p99").met).toBe(true);
    expect(check(checks, "REST start p99").measured).toBe("20.00 ms vs 2 × 10.00 ms");
    expect(check(checks, "gRPC start p99").met).toBe(false);
  });

  it("leaves the embedded comparison to embedded runs", () => {
    const embedded = check(checks, "embedded: REST");
    expect(embedded.met).toBeUndefined();
    expect(embedded.notApplicable).toBe(true);
  });

  it("does not judge against a floor that fell behind its timetable", () => {
    const overloaded = results(
      [
        { key: "open.rest", point: "50 %", callsPerSecond: 75, offered: 75, startP99Ms: 500 },
        { key: "floor.db", point: "50 % REST", callsPerSecond: 60, offered: 75, startP99Ms: 8 },
        { key: "floor.http", point: "50 % REST", callsPerSecond: 75, offered: 75, startP99Ms: 2 },
      ],
      { tps: 1000 },
    );
    const floor = check(costTargets(overloaded), "REST start p99");
    expect(floor.met).toBeUndefined();
    expect(floor.notApplicable).toBe(true);
  });
});

describe("cost targets on the embedded database", () => {
  const run = results(
    [
      { key: "closed.rest", callsPerSecond: 100 },
      { key: "closed.grpc", callsPerSecond: 99.9 },
    ],
    { kind: "pglite" },
  );

  it("judges its closed loop against half of the newest PostgreSQL run's", () => {
    const checks = costTargets(run, { file: "pg.json", restCallsPerSecond: 200, grpcCallsPerSecond: 200 });
    expect(check(checks, "embedded: REST").met).toBe(true);
    expect(check(checks, "embedded: REST").measured).toBe("0.50 × (100.0 calls/s vs 200.0 in pg.json)");
    expect(check(checks, "embedded: gRPC").met).toBe(false);
    // pgbench needs PostgreSQL: not measured, and not this run's to measure.
    expect(check(checks, "REST closed-loop calls/s").notApplicable).toBe(true);
  });

  it("says so when no PostgreSQL run of this machine is stored", () => {
    const embedded = check(costTargets(run), "embedded: REST");
    expect(embedded.met).toBeUndefined();
    expect(embedded.measured).toMatch(/^not measured/);
  });
});

describe("the newest PostgreSQL run on this machine", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  const stored = (machine: MachineDescription, rest: number) => ({
    machine,
    phases: [
      { key: "closed.rest", loop: { callsPerSecond: rest } },
      { key: "closed.grpc", loop: { callsPerSecond: rest - 10 } },
    ],
  });

  it("skips embedded runs, other machines and unreadable files, newest first", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postgres-reference-"));
    dirs.push(dir);
    const write = (name: string, body: unknown) =>
      writeFile(join(dir, name), typeof body === "string" ? body : JSON.stringify(body));
    await write("2026-11-25T09-00-00.000Z.json", stored(MACHINE, 300));
    await write("2026-11-25T10-00-00.000Z.json", stored(MACHINE, 350));
    await write("2026-11-25T11-00-00.000Z.json", stored({ ...MACHINE, cpuCount: 4 }, 900));
    await write(
      "2026-11-25T12-00-00.000Z.json",
      stored({ ...MACHINE, database: { kind: "pglite", version: "17" } }, 400),
    );
    await write("2026-11-25T13-00-00.000Z.json", "{ not json");
    await write("notes.txt", "not a run");

    expect(await newestPostgresRun(dir, MACHINE)).toEqual({
      file: "2026-11-25T10-00-00.000Z.json",
      restCallsPerSecond: 350,
      grpcCallsPerSecond: 340,
    });
  });

  it("finds none in a folder that does not exist", async () => {
    expect(await newestPostgresRun(join(tmpdir(), "no-such-results-folder"), MACHINE)).toBeUndefined();
  });
});
