import pino from "pino";

// Every request writes at least one log line (the access log). pino's
// default destination hands each line to libuv's thread pool for a write of
// its own: a worker thread woken, a write, and an event back to the main
// thread, for every request. Here lines are held until about 4 KB have
// gathered (a dozen requests) or 100 ms have passed, and written at once from
// the main thread. Whatever is held is written before the process exits;
// only a process killed outright (SIGKILL) loses its last 100 ms of lines.

/** Held lines are written once they reach this many bytes. */
const WRITE_AT_BYTES = 4096;
/** A line waits at most this long when traffic is light. */
const HOLD_AT_MOST_MS = 100;

export interface LogOutput {
  readonly destination: pino.DestinationStream;
  /** Writes what is held now: before anything else is written to standard output, so the lines stay in order. */
  writeHeld(): void;
  /** Writes what is held and stops holding; standard output itself stays open. */
  close(): void;
}

export function standardOutputInBlocks(): LogOutput {
  const destination = pino.destination({ dest: 1, sync: true, minLength: WRITE_AT_BYTES });
  const timer = setInterval(() => destination.flush(), HOLD_AT_MOST_MS);
  timer.unref();
  const writeHeld = () => destination.flushSync();
  process.on("exit", writeHeld);
  return {
    destination,
    writeHeld,
    close() {
      clearInterval(timer);
      process.off("exit", writeHeld);
      writeHeld();
    },
  };
}
