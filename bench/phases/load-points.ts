// The offered rates of the service's open loops: fractions of the service's
// own closed-loop calls/s in the same run (per protocol), so the load is
// relative to what this machine carries today, plus the fixed --rate for
// continuity with earlier runs.

export interface LoadPoint {
  /** "50 %", "80 %" or "fixed". */
  readonly point: string;
  readonly callsPerSecond: number;
}

export const RELATIVE_POINTS = [0.5, 0.8] as const;
/** The load point at which the service is compared with its latency floors. */
export const FLOOR_POINT = "50 %";

/** Below one call a second a relative point means nothing (the closed loop failed). */
export function loadPoints(capacityCallsPerSecond: number | undefined, fixedRate: number): LoadPoint[] {
  const relative =
    capacityCallsPerSecond === undefined || capacityCallsPerSecond < 2
      ? []
      : RELATIVE_POINTS.map((share) => ({ point: pointName(share), callsPerSecond: share * capacityCallsPerSecond }));
  return [...relative, { point: "fixed", callsPerSecond: fixedRate }];
}

export function pointName(share: number): string {
  return `${Math.round(share * 100)} %`;
}
