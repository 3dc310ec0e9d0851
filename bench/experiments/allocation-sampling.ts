import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

// Loaded into the server with `--import`: V8's sampling heap profiler, with
// the objects garbage collection has already freed kept in the profile, so it
// shows where the bytes a call allocates come from (what the young and full
// collections then have to clear), not only what is still alive. Written as
// <pid>.heapprofile into ALLOCATION_PROFILE_DIR (default: the working
// directory) when the process exits. Read it with allocation-summary.ts:
//   npm run bench:burst-ab -- --a=--import=./bench/experiments/allocation-sampling.ts --b "" --rounds 1

const SAMPLING_INTERVAL_BYTES = 16 * 1024;
const dir = process.env.ALLOCATION_PROFILE_DIR ?? ".";

// A session on the process's own thread answers synchronously, so it can still be read in an exit handler.
const session = new Session();
session.connect();
session.post("HeapProfiler.startSampling", {
  samplingInterval: SAMPLING_INTERVAL_BYTES,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
process.on("exit", () => {
  session.post("HeapProfiler.stopSampling", (error, result) => {
    if (error) process.stderr.write(`allocation profile not written: ${error.message}\n`);
    else writeFileSync(join(dir, `${process.pid}.heapprofile`), JSON.stringify(result.profile));
  });
});
