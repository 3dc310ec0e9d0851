import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { runToExit } from "../helpers/run-to-exit.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

// The log goes to standard output in blocks (src/log-output.ts): lines are
// held until a few kilobytes gather or a tenth of a second passes. Nothing
// may be lost by it: not the line of a request on a quiet service, not what
// was held when the process exits.

/** Waits until every id has an access-log line in the output, or the time is up. */
async function linesOf(server: ServerProcess, requestIds: string[], withinMs: number): Promise<string[]> {
  const until = performance.now() + withinMs;
  for (;;) {
    const lines = requestIds.map((id) => server.output.find((line) => line.includes(`"reqId":"${id}"`)));
    if (lines.every((line) => line !== undefined) || performance.now() > until) {
      return lines.filter((line) => line !== undefined);
    }
    await sleep(50);
  }
}

async function health(server: ServerProcess, requestId: string): Promise<number> {
  const response = await fetch(`${server.url}/v1/health`, { headers: { "x-request-id": requestId } });
  await response.arrayBuffer();
  return response.status;
}

describe("log lines on standard output", () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await database?.drop();
  });

  it("a quiet service writes each request's line without waiting for more traffic, and what it holds at SIGTERM", async () => {
    database = await createTestDatabase();
    const server = await startServerProcess(database.env);
    try {
      const quiet = ["quiet-1", "quiet-2", "quiet-3"];
      for (const id of quiet) expect(await health(server, id)).toBe(200);
      // Three lines are far below a block: only the tenth-of-a-second write can bring them out.
      expect(await linesOf(server, quiet, 10_000)).toHaveLength(3);

      const last = ["last-1", "last-2", "last-3"];
      for (const id of last) expect(await health(server, id)).toBe(200);
      server.kill("SIGTERM");
      expect((await server.exited).code).toBe(0);
    } finally {
      await server.stop();
    }
    expect(await linesOf(server, ["last-1", "last-2", "last-3"], 0)).toHaveLength(3);
    // Logged during the close itself, after the last of the timer's writes could have run.
    expect(server.output.some((line) => line.includes('"msg":"shutting down"'))).toBe(true);
  }, 120_000);

  it("lines held when the process exits at once are written before it ends", async () => {
    const script = [
      'import pino from "pino";',
      'import { standardOutputInBlocks } from "./src/log-output.ts";',
      "const log = pino({}, standardOutputInBlocks().destination);",
      'for (let n = 0; n < 3; n++) log.info({ n }, "held");',
      "process.exit(0);",
    ].join("\n");
    const run = await runToExit(["--input-type=module", "-e", script], {});
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const held = run.stdout.split("\n").filter((line) => line.includes('"msg":"held"'));
    expect(held.map((line) => JSON.parse(line).n)).toEqual([0, 1, 2]);
  });
});
