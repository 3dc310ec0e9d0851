import { ConfigError } from "./config.ts";
import { DataDirAccessError } from "./data-dir-access.ts";
import { DataDirLockedError } from "./database/data-dir-lock.ts";
import { DataDirModeError } from "./database/data-dir-mode.ts";
import { ListenError } from "./listen-failure.ts";
import { SecretKeyError } from "./secrets/secret-box.ts";
import { DatabaseWaitError } from "./wait-for-database.ts";

// What a failed start prints on standard error: one line, naming the setting
// to change where one is to blame, and never a stack trace (an operator's
// terminal or a supervisor's log is where it lands, not a debugger).

const EXPECTED = [
  DataDirLockedError,
  DataDirModeError,
  DataDirAccessError,
  DatabaseWaitError,
  SecretKeyError,
  ListenError,
];

export function startupFailureLine(error: unknown): string {
  if (error instanceof ConfigError) return `caller-context: invalid configuration: ${error.problems.join("; ")}`;
  const message = oneLine(error instanceof Error ? error.message : String(error));
  if (EXPECTED.some((kind) => error instanceof kind)) return `caller-context: ${message}`;
  return `caller-context: start-up failed: ${message}`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
