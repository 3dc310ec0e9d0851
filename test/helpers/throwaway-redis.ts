import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { Redis } from "ioredis";
import { freePort } from "./throwaway-postgres.ts";

// A redis-server of a test's own, on a port the OS picked, with nothing saved
// to disk, so the test may pause, kill and restart it without touching the
// machine's Redis on 6379. Paused (SIGSTOP) it keeps its connections open and
// answers nothing: the failure that makes clients hang. Killed, it refuses.

export interface ThrowawayRedis {
  readonly url: string;
  /** SIGSTOP: connections stay open, nothing is answered. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** SIGKILL, and waits for the exit: connections are refused until start(). */
  kill(): Promise<void>;
  /** Starts a new server on the same port (empty: nothing was saved) and waits until it answers. */
  start(): Promise<void>;
  /** Kills the server if it runs; safe to call more than once. */
  remove(): Promise<void>;
}

export async function createThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let server: ChildProcess | undefined;
  let exited: Promise<unknown> = Promise.resolve();

  const start = async () => {
    const child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      {
        stdio: "ignore",
      },
    );
    server = child;
    exited = once(child, "exit");
    await answers(url, child);
  };
  const kill = async () => {
    server?.kill("SIGKILL");
    await exited;
    server = undefined;
  };
  await start();
  return {
    url,
    pause: () => server?.kill("SIGSTOP"),
    resume: () => server?.kill("SIGCONT"),
    kill,
    start,
    remove: async () => {
      server?.kill("SIGCONT");
      await kill();
    },
  };
}

/** Resolves once the server answers PING; fails when it exits first or stays silent for 10 s. */
async function answers(url: string, child: ChildProcess): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on("error", () => {});
  try {
    for (let attempt = 0; attempt < 200; attempt++) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`redis-server exited (${child.exitCode ?? child.signalCode})`);
      try {
        if (client.status !== "ready") await client.connect();
        await client.ping();
        return;
      } catch {
        client.disconnect();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    throw new Error(`redis-server on ${url} did not answer within 10 s`);
  } finally {
    client.disconnect();
  }
}
