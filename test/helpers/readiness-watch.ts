import { execFile } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { serverPrograms } from "./throwaway-postgres.ts";

// When a PostgreSQL server accepts connections, as a client sees it: pg_isready
// run again and again, each answer kept with the moment it came
// (performance.now()). Not the server's log, not pg_ctl's own wait.

const PAUSE_MS = 20;

export interface ReadinessWatch {
  /**
   * The first moment after `from` that pg_isready said "accepting connections"
   * having said otherwise since `from`: when the server was back. Undefined if
   * it was never seen down, or not seen back.
   */
  backAfter(from: number): number | undefined;
  stop(): Promise<void>;
}

export async function watchReadiness(url: string): Promise<ReadinessWatch> {
  const { hostname, port } = new URL(url);
  const pgIsready = join(await serverPrograms(), "pg_isready");
  const seen: { at: number; ready: boolean }[] = [];
  let watching = true;
  const loop = (async () => {
    while (watching) {
      const ready = await new Promise<boolean>((resolve) => {
        execFile(pgIsready, ["-q", "-h", hostname, "-p", port, "-t", "1"], (error) => resolve(error === null));
      });
      seen.push({ at: performance.now(), ready });
      await sleep(PAUSE_MS);
    }
  })();
  return {
    backAfter(from) {
      const after = seen.filter((s) => s.at > from);
      const down = after.findIndex((s) => !s.ready);
      if (down < 0) return undefined;
      return after.slice(down).find((s) => s.ready)?.at;
    },
    async stop() {
      watching = false;
      await loop;
    },
  };
}
