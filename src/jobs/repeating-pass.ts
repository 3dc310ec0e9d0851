// Background work on a timer: a pass every `intervalMs`, one at a time (a pass that outlasts the interval delays
// the next rather than overlapping it). The pass is told when the job is stopping, so it can end between its
// batches; `stop()` ends the timer and waits for a running pass.

export interface RepeatingPass {
  stop(): Promise<void>;
}

export function startRepeatingPass(
  intervalMs: number,
  pass: (stopping: () => boolean) => Promise<void>,
  onError: (error: unknown) => void,
): RepeatingPass {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const stopping = () => stopped;
  const timer = setInterval(() => {
    running = running.then(() => pass(stopping)).catch(onError);
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
