import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect } from "vitest";
import { ADMIN_TOKEN } from "./test-server.ts";

// The CLI as an operator runs it: a child process talking to a real server.

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;
const run = promisify(execFile);

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export type CliEnv = Record<string, string | undefined>;

/** Runs `caller-context ARGS` against the server at `url` with the admin token; `undefined` in env unsets. */
export async function runCli(url: string, args: string[], env: CliEnv = {}): Promise<CliResult> {
  const childEnv: CliEnv = { ...process.env, CALLER_CONTEXT_URL: url, ADMIN_TOKEN, ...env };
  for (const [name, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[name];
  try {
    const { stdout, stderr } = await run(process.execPath, [MAIN, ...args], { env: childEnv });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout: string; stderr: string };
    if (typeof failed.code !== "number") throw error;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Runs a command that must succeed with `--json` and returns the one object it printed. */
export async function runCliJson(url: string, args: string[], env?: CliEnv): Promise<any> {
  const result = await runCli(url, [...args, "--json"], env);
  expect(result, result.stderr).toMatchObject({ code: 0, stderr: "" });
  expect(result.stdout.endsWith("\n")).toBe(true);
  expect(result.stdout.trimEnd().split("\n")).toHaveLength(1);
  return JSON.parse(result.stdout);
}
