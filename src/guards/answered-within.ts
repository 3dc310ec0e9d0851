/** A command that went unanswered for longer than its timeout. */
export class CommandTimeoutError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms (REDIS_TIMEOUT_MS)`);
    this.name = "CommandTimeoutError";
  }
}

/**
 * `promise`, or a CommandTimeoutError once `ms` have passed without it settling. A reply that reached the socket
 * while this process's event loop was held up (a long task, a pause for garbage collection) still counts: the timer
 * looks once more after the loop's next read of its sockets, so a busy instance does not take its own delay for
 * Redis's.
 */
export function answeredWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!settled) reject(new CommandTimeoutError(ms));
        }),
      ms,
    );
    promise.then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
