import { describe, expect, it } from "vitest";
import { DIALLED_NUMBERS } from "../../bench/load/population.ts";
import { createWorkload, customersOf } from "../../bench/load/workload.ts";
import { loadPoints } from "../../bench/phases/load-points.ts";
import { recoveryOf } from "../../bench/phases/overload-phases.ts";
import { parseTps } from "../../bench/phases/pgbench-anchor.ts";
import { cpuPerCall } from "../../bench/report/cpu-per-call.ts";
import { checkScaleOut } from "../../bench/report/targets.ts";

// The benchmark's own arithmetic: load points, CPU per call, the pgbench
// figure, the scale-out target, and the shape of the simulated calls.

describe("load points", () => {
  it("offers 50 % and 80 % of the closed-loop calls/s, then the fixed rate", () => {
    expect(loadPoints(300, 200)).toEqual([
      { point: "50 %", callsPerSecond: 150 },
      { point: "80 %", callsPerSecond: 240 },
      { point: "fixed", callsPerSecond: 200 },
    ]);
  });

  it("keeps only the fixed rate when the closed loop carried nothing", () => {
    expect(loadPoints(0, 200)).toEqual([{ point: "fixed", callsPerSecond: 200 }]);
    expect(loadPoints(undefined, 50)).toEqual([{ point: "fixed", callsPerSecond: 50 }]);
  });
});

describe("CPU per call", () => {
  const phase = (callsPerSecond: number, postgresCpuPercent?: number) => ({
    loop: { callsPerSecond } as never,
    resources: { serverCpuPercent: 50, clientCpuPercent: 20, postgresCpuPercent, machineCpuPercent: 60 },
  });

  it("turns percent of a core at a rate into ms per call", () => {
    // Half a core at 100 calls/s: 5 ms of CPU per call.
    expect(cpuPerCall(phase(100, 40))).toEqual({ serverMs: 5, postgresMs: 4, clientMs: 2, totalMs: 11 });
  });

  it("leaves an unmeasured party out and refuses a phase with no completed call", () => {
    expect(cpuPerCall(phase(100))?.postgresMs).toBeUndefined();
    expect(cpuPerCall(phase(0))).toBeUndefined();
  });
});

describe("pgbench output", () => {
  it("reads the tps line", () => {
    const output = "number of failed transactions: 0 (0.000%)\ntps = 912.345678 (without initial connection time)\n";
    expect(parseTps(output)).toBeCloseTo(912.345678);
    expect(parseTps("connection refused")).toBeUndefined();
  });
});

describe("scale-out target", () => {
  it("is not measured without a result, and met from 1.6 × one instance", () => {
    expect(checkScaleOut(undefined).met).toBeUndefined();
    expect(checkScaleOut({ oneInstanceCallsPerSecond: 100, twoInstanceCallsPerSecond: 160 }).met).toBe(true);
    expect(checkScaleOut({ oneInstanceCallsPerSecond: 100, twoInstanceCallsPerSecond: 159 }).met).toBe(false);
  });
});

describe("simulated calls", () => {
  it("dial one of a handful of numbers and store three variables", () => {
    const workload = createWorkload({ population: 1000, runTag: "t" });
    const calls = Array.from({ length: 2000 }, () => workload.next());
    expect(new Set(calls.map((call) => call.dnis))).toEqual(new Set(DIALLED_NUMBERS));
    expect(calls.every((call) => Object.keys(call.variables).length === 3)).toBe(true);
  });

  it("draw from the grown callers once the growth phase has added them", () => {
    const workload = createWorkload({ population: 10, runTag: "t" });
    const grown = Array.from({ length: 90 }, () => workload.nextGrowth().ani);
    expect(new Set(grown).size).toBe(90);
    expect(customersOf(workload)).toBe(100);
    const known = Array.from({ length: 500 }, () => workload.next().ani).filter((ani) => grown.includes(ani));
    expect(known.length).toBeGreaterThan(0);
  });
});

describe("recovery after a burst", () => {
  /** 70 starts a second for `seconds`, each second's latencies from `msOf(second, n)`. */
  const startsOver = (seconds: number, msOf: (second: number, n: number) => number | undefined) =>
    Array.from({ length: seconds * 70 }, (_, i) => ({
      at: Math.floor(i / 70) * 1000 + (i % 70) * 14,
      ms: msOf(Math.floor(i / 70), i % 70),
    }));

  it("counts from the first second after which the starts' p99 is back within 20 % of the baseline", () => {
    const starts = startsOver(5, (second, n) => (second < 2 ? 400 : n === 0 && second === 4 ? 70 : 40));
    const { seconds, p99s } = recoveryOf(starts, 0, 50);
    expect(seconds).toBe(2);
    expect(p99s).toEqual([400, 400, 40, 40, 70]); // the last second alone: its one slow start is its p99
  });

  it("one slow start in the last second does not undo a recovery; a slow last two seconds does", () => {
    expect(
      recoveryOf(
        startsOver(5, (second, n) => (second === 4 && n === 0 ? 900 : 40)),
        0,
        50,
      ).seconds,
    ).toBe(0);
    expect(
      recoveryOf(
        startsOver(5, (second) => (second >= 3 ? 900 : 40)),
        0,
        50,
      ).seconds,
    ).toBeUndefined();
  });

  it("the second a recovery counts from must itself be back, not only carried by the seconds after it", () => {
    const starts = startsOver(5, (second, n) => (second === 0 && n < 3 ? 900 : 40));
    expect(recoveryOf(starts, 0, 50).seconds).toBe(1);
  });

  it("a failed start counts as endless", () => {
    expect(
      recoveryOf(
        startsOver(5, (_, n) => (n < 5 ? undefined : 40)),
        0,
        50,
      ).seconds,
    ).toBeUndefined();
  });
});
