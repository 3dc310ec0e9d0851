// Latencies kept as every sample (a run holds at most a few hundred thousand),
// so percentiles are exact: nearest rank over the sorted samples.

export interface LatencySummary {
  readonly count: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface LatencyRecorder {
  record(ms: number): void;
  readonly count: number;
  summary(): LatencySummary;
}

export function createLatencyRecorder(): LatencyRecorder {
  let samples = new Float64Array(4096);
  let count = 0;
  return {
    record(ms) {
      if (count === samples.length) {
        const grown = new Float64Array(samples.length * 2);
        grown.set(samples);
        samples = grown;
      }
      samples[count++] = ms;
    },
    get count() {
      return count;
    },
    summary() {
      const sorted = samples.slice(0, count).sort();
      let sum = 0;
      for (const value of sorted) sum += value;
      return {
        count,
        meanMs: count === 0 ? Number.NaN : sum / count,
        p50Ms: percentile(sorted, 50),
        p95Ms: percentile(sorted, 95),
        p99Ms: percentile(sorted, 99),
        maxMs: count === 0 ? Number.NaN : sorted[count - 1],
      };
    },
  };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}
