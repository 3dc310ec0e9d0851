import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

// A short-lived process of the project (a CLI command, a server expected to
// refuse to start), run to its end: exit code, output, and how long it took.

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

export interface RunOptions {
  /** The working directory; the repository's root when unset (args are then relative to it). */
  readonly cwd?: string;
  /** Another user to run as (the test runs as root), for permissions root would ignore. */
  readonly user?: { readonly uid: number; readonly gid: number };
}

export function runToExit(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
  options: RunOptions = {},
): Promise<Finished> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    ...options.user,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return new Promise((resolve) => {
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - startedAt });
    });
  });
}
