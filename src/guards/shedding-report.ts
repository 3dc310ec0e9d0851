import type { FastifyBaseLogger } from "fastify";
import type { AdmissionControl, AdmissionStats } from "../pipeline/admission-control.ts";

// One log line per interval in which calls were refused, with the counts and
// the limit: the admission control's metrics as the log carries them.

export function reportShedding(admission: AdmissionControl, log: FastifyBaseLogger, intervalMs = 5000): () => void {
  let previous = admission.stats();
  const timer = setInterval(() => {
    const current = admission.stats();
    const refused = totalRefused(current) - totalRefused(previous);
    if (refused > 0) {
      log.warn(
        {
          admission: {
            ...current,
            refusedSinceLast: refused,
            admittedSinceLast: current.admitted - previous.admitted,
          },
        },
        "shedding load",
      );
    }
    previous = current;
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

function totalRefused(stats: AdmissionStats): number {
  return Object.values(stats.refused).reduce((sum, count) => sum + count, 0);
}
