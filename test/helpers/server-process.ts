import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ADMIN_TOKEN, SECRETS_KEY } from "./test-server.ts";

// The service as it runs in production: `node src/main.ts` (or `npm start`) in
// a process of its own, found through the URL it logs when it starts listening,
// and by default returned once it logs that it is ready.

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
// A first start on an embedded database on disk writes about a thousand files: slow on a busy machine.
const START_TIMEOUT_MS = 90_000;

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Every stdout and stderr line so far, for failure messages. */
  readonly output: string[];
  /** Settles when the process has exited, with its exit code or the signal that ended it. */
  readonly exited: Promise<ProcessExit>;
  /** Whether the process is still running. */
  running(): boolean;
  /** Sends a signal and returns at once. */
  kill(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface ServerProcessOptions {
  /** Return once the port is open, or (the default) once the database is ready too. */
  readonly until?: "listening" | "ready";
  /** What to run: `node src/main.ts` (the default) or `npm start`. */
  readonly command?: "node" | "npm start";
  /** The working directory of `node src/main.ts` (where a default DATA_DIR lands); the repository's root when unset. */
  readonly cwd?: string;
}

export async function startServerProcess(
  env: Record<string, string>,
  options: ServerProcessOptions = {},
): Promise<ServerProcess> {
  const [file, args] =
    options.command === "npm start" ? ["npm", ["start"]] : [process.execPath, [join(REPO_ROOT, "src/main.ts")]];
  const child = spawn(file, args, {
    cwd: options.command === "npm start" ? REPO_ROOT : (options.cwd ?? REPO_ROOT),
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      ADMIN_TOKEN,
      SECRETS_KEY,
      METRICS_PORT: "0",
      // As in test-server.ts: the admin API on the public port unless a test asks for the default ("").
      ADMIN_LISTEN: "public",
      LOG_LEVEL: "info",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const until = options.until ?? "ready";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => fail(`no "caller context ${until}" within ${START_TIMEOUT_MS} ms`),
      START_TIMEOUT_MS,
    );
    const onExit = (code: number | null, signal: string | null) => fail(`exited (${code ?? signal}) before listening`);
    const onError = (error: Error) => fail(error.message);
    const settle = () => {
      clearTimeout(timer);
      child.off("exit", onExit);
      child.off("error", onError);
    };
    const fail = (why: string) => {
      settle();
      child.kill("SIGKILL");
      reject(new Error(`server process: ${why}\n${output.join("\n")}`));
    };
    collectLines(child, output, (line) => {
      const entry = parseJson(line);
      if (entry?.msg === `caller context ${until}` && typeof entry.url === "string") {
        settle();
        resolve(entry.url);
      }
    });
    child.once("exit", onExit);
    child.once("error", onError);
  });
  return {
    url,
    pid: child.pid ?? 0,
    output,
    exited,
    running: () => child.exitCode === null && child.signalCode === null,
    kill: (signal) => void child.kill(signal),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function collectLines(child: ChildProcess, output: string[], onStdoutLine: (line: string) => void): void {
  for (const [stream, isStdout] of [
    [child.stdout, true],
    [child.stderr, false],
  ] as const) {
    let rest = "";
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        output.push(line);
        if (isStdout) onStdoutLine(line);
      }
    });
  }
}

function parseJson(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line);
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
