import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

// A Node.js child process that serves HTTP and announces its URL in a JSON
// log line. Its output is read to the end, so a full pipe never blocks it.

export interface ChildServer {
  readonly url: string;
  /** The `url` of a "metrics listening" line logged before ready, if any. */
  readonly metricsUrl: string | undefined;
  readonly pid: number;
  /** Log lines at warn level or above since it started, by message. */
  readonly problems: Map<string, number>;
  /** SIGTERM, then SIGKILL if it has not exited in time. */
  stop(): Promise<void>;
}

export interface ChildServerOptions {
  readonly entry: string;
  readonly env: NodeJS.ProcessEnv;
  readonly nodeArgs?: readonly string[];
  /** The `msg` of the line carrying `url`. */
  readonly readyMessage: string;
  readonly startTimeoutMs?: number;
}

const STOP_TIMEOUT_MS = 20_000;
const METRICS_LINE = "metrics listening";

export async function startChildServer(options: ChildServerOptions): Promise<ChildServer> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.entry], {
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const problems = new Map<string, number>();
  let stderrTail = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-4000);
  });

  let metricsUrl: string | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${options.entry} did not start in time\n${stderrTail}`));
    }, options.startTimeoutMs ?? 120_000);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${options.entry} exited (${code}) before listening\n${stderrTail}`));
    };
    child.once("exit", onExit);
    createInterface({ input: child.stdout! }).on("line", (line) => {
      // Request lines (info) are most of the output: skip them without parsing.
      if (line.startsWith('{"level":30') && !line.includes(options.readyMessage) && !line.includes(METRICS_LINE))
        return;
      const entry = parseJson(line);
      if (entry === undefined) return;
      if (entry.msg === METRICS_LINE && typeof entry.url === "string") metricsUrl = entry.url;
      else if (entry.msg === options.readyMessage && typeof entry.url === "string") {
        clearTimeout(timer);
        child.off("exit", onExit);
        resolve(entry.url);
      } else if (typeof entry.level === "number" && entry.level >= 40) {
        const message = String(entry.msg);
        problems.set(message, (problems.get(message) ?? 0) + 1);
      }
    });
  });

  // A server that dies mid-run says how (a signal from outside, or its own last words), so the run's failures
  // that follow are read as what they are.
  let stopping = false;
  child.once("exit", (code, signal) => {
    if (stopping) return;
    process.stderr.write(
      `${options.entry} (pid ${child.pid}) exited during the run: code ${code}, signal ${signal}\n${stderrTail}\n`,
    );
  });

  return {
    url,
    metricsUrl,
    pid: child.pid!,
    problems,
    stop: () => {
      stopping = true;
      return stopChild(child);
    },
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

function parseJson(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
