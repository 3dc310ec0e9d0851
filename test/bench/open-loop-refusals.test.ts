import { describe, expect, it } from "vitest";
import { RequestFailure } from "../../bench/load/call-driver.ts";
import { runOpenLoop } from "../../bench/load/open-loop.ts";
import { createWorkload } from "../../bench/load/workload.ts";

// The open loop times a refusal twice: from its scheduled send (the target,
// as a caller counts) and from the client's actual send, which leaves out the
// client's own lag behind its timetable. A driver that refuses every start
// after a few milliseconds, and holds the client's thread for a while on the
// first one, makes the two differ by that hold.

const HOLD_MS = 200;
const REFUSED_AFTER_MS = 2;

describe("refusals in the open loop", () => {
  it("are timed from the scheduled send and, apart, from the client's actual send", async () => {
    let first = true;
    const driver = {
      name: "refusing",
      start() {
        if (first) {
          first = false;
          const until = performance.now() + HOLD_MS;
          while (performance.now() < until) {
            // The client's thread is busy: the starts due meanwhile are sent late.
          }
        }
        return new Promise<string>((_, reject) =>
          setTimeout(() => reject(new RequestFailure("http 503")), REFUSED_AFTER_MS),
        );
      },
      end: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const loop = await runOpenLoop(driver, createWorkload({ population: 10, runTag: "refusals" }), {
      callsPerSecond: 100,
      durationSeconds: 0.5,
    });
    expect(loop.refusals?.count).toBe(50);
    expect(loop.refusalsFromSend?.count).toBe(50);
    // The ~20 starts due during the hold (of 50) waited for it before they were sent...
    expect(loop.refusals!.p95Ms).toBeGreaterThanOrEqual(HOLD_MS / 2);
    // ...and each was answered a few milliseconds after it left (only the held one itself took long).
    expect(loop.refusalsFromSend!.p95Ms).toBeLessThan(HOLD_MS / 2);
  });
});
