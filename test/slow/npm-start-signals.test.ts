import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { request } from "../helpers/rest-client.ts";
import { type ProcessExit, type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

// What a supervisor starts is what it stops: SIGTERM or SIGINT to the process
// `npm start` started, or to the service under it, ends the whole tree
// gracefully (exit 0 within SHUTDOWN_GRACE_MS). The same for the package's
// command, `caller-context serve`.

const SHUTDOWN_GRACE_MS = 5_000;
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

let database: TestDatabase | undefined;
let env: Record<string, string>;
const started: ServerProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  // Every server here shares one database, so they share one secrets key (as docs/operations.md asks of several
  // instances): each start stores the forget-me pepper sealed with it.
  env = {
    ...database.env,
    REDIS_URL: "",
    SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS),
    SECRETS_KEY: "dGVzdC1zZWNyZXRzLWtleS0wMTIzNDU2Nzg5YWJjZGU=",
  };
});

afterAll(async () => {
  await Promise.all(started.map((server) => server.stop()));
  await database?.drop();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The service's own pid, from its log lines (under npm, the spawned process is npm). */
function servicePid(server: ServerProcess): number {
  for (const line of server.output) {
    const match = /"pid":(\d+)/.exec(line);
    if (match) return Number(match[1]);
  }
  throw new Error(`no log line with a pid:\n${server.output.join("\n")}`);
}

async function stopAndWatch(server: ServerProcess, target: number, signal: NodeJS.Signals) {
  const pids = [server.pid, servicePid(server)];
  const signalledAt = performance.now();
  process.kill(target, signal);
  const exit: ProcessExit = await server.exited;
  const exitAfterMs = performance.now() - signalledAt;
  // The tree is gone: give the kernel a moment to reap, then look.
  for (let i = 0; i < 20 && pids.some(alive); i++) await sleep(50);
  return { exit, exitAfterMs, stillAlive: pids.filter(alive), log: server.output.join("\n") };
}

describe("npm start", () => {
  for (const [signal, to] of [
    ["SIGTERM", "npm"],
    ["SIGINT", "npm"],
    ["SIGTERM", "the service"],
  ] as const) {
    test(`${signal} to ${to}: exit 0 within SHUTDOWN_GRACE_MS and no process of the tree left`, async ({
      annotate,
    }) => {
      const server = await startServerProcess(env, { command: "npm start" });
      started.push(server);
      expect((await request(server.url, "GET", "/v1/health")).status).toBe(200);
      const target = to === "npm" ? server.pid : servicePid(server);
      expect(target).not.toBe(0);
      const seen = await stopAndWatch(server, target, signal);
      expect(seen.exit).toEqual({ code: 0, signal: null });
      expect(seen.exitAfterMs).toBeLessThan(SHUTDOWN_GRACE_MS);
      expect(seen.stillAlive).toEqual([]);
      expect(seen.log).toContain(`"reason":"${signal}","msg":"shutting down"`);
      await annotate(`${signal} to ${to}: npm exit 0 after ${Math.round(seen.exitAfterMs)} ms`);
    });
  }
});

test("caller-context serve (the package's command) serves and stops on SIGTERM with exit 0", async () => {
  const child = spawn(join(REPO_ROOT, "bin/caller-context"), ["serve"], {
    env: { ...process.env, ...env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = once(child, "exit");
  try {
    for (let i = 0; i < 300 && !output.includes("caller context ready"); i++) await sleep(100);
    const url = /"url":"(http:[^"]+)","msg":"caller context ready"/.exec(output)?.[1];
    expect(url, output).toBeDefined();
    expect((await request(url!, "GET", "/v1/health")).status).toBe(200);
    // The launcher execs Node: the pid the supervisor knows is the service's.
    expect(output).toContain(`"pid":${child.pid}`);
    child.kill("SIGTERM");
    expect(await exited).toEqual([0, null]);
  } finally {
    child.kill("SIGKILL");
  }
});
