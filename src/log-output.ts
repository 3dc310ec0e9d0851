import pino from "pino";

// Every request writes at least one log line (the access log). pino's
// default destination hands each line to libuv's thread pool for a write of
// its own: a worker thread woken, a write, and an event back to the main
// thread, for every request. Here lines are held until about 4 KB have
// gathered (a dozen requests) or 100 ms have passed, and each block is one
// such write. The writes stay off the main thread: standard output may be a
// non-blocking pipe or socket, and a synchronous write to a full one would
// stall every request (sonic-boom sleeps 100 ms and retries). Whatever is held
// is written before the process exits; only a process killed outright
// (SIGKILL) loses its last 100 ms of lines.

/** Held lines are written once they reach this many bytes. */
const WRITE_AT_BYTES = 4096;
/** A line waits at most this long when traffic is light. */
const HOLD_AT_MOST_MS = 100;

export interface LogOutput {
  readonly destination: pino.DestinationStream;
  /** Writes what is held now: before anything else is written to standard output, so the lines stay in order. */
  writeHeld(): Promise<void>;
  /** Writes what is held and stops holding; standard output itself stays open. */
  close(): Promise<void>;
}

export function standardOutputInBlocks(): LogOutput {
  const destination = pino.destination({ dest: 1, sync: false, minLength: WRITE_AT_BYTES });
  const timer = setInterval(() => destination.flush(), HOLD_AT_MOST_MS);
  timer.unref();
  // At exit, pino writes what is held synchronously: it registers that for every destination with sync off.
  const writeHeld = async () => {
    // The block being written finishes first (its callback's error is fsync's, which a pipe refuses); what was held
    // behind it is then written at once, in order.
    await new Promise<void>((resolve) => destination.flush(() => resolve()));
    destination.flushSync();
  };
  return {
    destination,
    writeHeld,
    async close() {
      clearInterval(timer);
      await writeHeld();
    },
  };
}
