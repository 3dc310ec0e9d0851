#!/usr/bin/env node
import { ConnectError } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import { adminAddressPath, readAdminUrl } from "../admin-address.ts";
import { ConfigError, type Env, readEnv } from "../config.ts";
import { accountCommands } from "./account-commands.ts";
import { type AdminClient, createAdminClient } from "./admin-client.ts";
import { analyticsCommand } from "./analytics-command.ts";
import { parseCommandLine, UsageError, wantsJson } from "./arguments.ts";
import { backupCommands } from "./backup-commands.ts";
import type { Command } from "./command.ts";
import { eventCommands } from "./event-commands.ts";
import { integrationCommands } from "./integration-commands.ts";
import { keyCommands } from "./key-commands.ts";
import { migrateCommand } from "./migrate-command.ts";
import { serveCommand } from "./serve-command.ts";
import { simulateCommands } from "./simulate-commands.ts";
import { usageText } from "./usage.ts";

// caller-context: the operator's client of the admin API (and `migrate`).
// Exit codes: 0 done, 1 the operation failed, 2 the command line was wrong.
// With --json, stdout holds exactly one JSON object either way; the reason of a
// failure is also on stderr, one line, for scripts that read it there.

const COMMANDS: readonly Command[] = [
  ...accountCommands,
  ...keyCommands,
  ...integrationCommands,
  ...eventCommands,
  ...backupCommands,
  ...simulateCommands,
  analyticsCommand,
  migrateCommand,
  serveCommand,
];
// Where the admin API is with ADMIN_LISTEN=public and the default PORT, when no address is published.
const DEFAULT_URL = "http://127.0.0.1:8080";

async function main(argv: string[], env: Env): Promise<number> {
  const line = parseCommandLine(argv, COMMANDS);
  if (line.kind === "help") {
    process.stdout.write(usageText(COMMANDS, line.topic));
    return 0;
  }
  let admin: AdminClient | undefined;
  const result = await line.command.run({
    args: line.args,
    options: line.options,
    env,
    admin: () => {
      admin ??= adminClientFromEnv(env);
      return admin;
    },
  });
  process.stdout.write(line.json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
  return 0;
}

function adminClientFromEnv(env: Env): AdminClient {
  const token = env.ADMIN_TOKEN;
  if (!token) throw new UsageError("ADMIN_TOKEN is not set");
  if (env.CALLER_CONTEXT_URL) {
    const baseUrl = env.CALLER_CONTEXT_URL;
    if (!URL.canParse(baseUrl)) throw new UsageError(`CALLER_CONTEXT_URL is not a URL: '${baseUrl}'`);
    return createAdminClient({ baseUrl, token });
  }
  // The admin listener a service on this host publishes in its DATA_DIR (by default on loopback, at a port
  // the system picked), as the service reads DATA_DIR.
  const dataDir = env.DATA_DIR || "./data";
  const published = readAdminUrl(dataDir);
  if (published === undefined) return createAdminClient({ baseUrl: DEFAULT_URL, token });
  return createAdminClient({ baseUrl: published, token, foundIn: adminAddressPath(dataDir) });
}

/** One line, whatever the error: scripts read stderr line by line. */
function reason(error: unknown): string {
  const text =
    error instanceof ConfigError
      ? `invalid configuration: ${error.problems.join("; ")}`
      : error instanceof ConnectError
        ? error.rawMessage
        : error instanceof Error
          ? error.message
          : String(error);
  const usage = error instanceof UsageError ? " (see caller-context --help)" : "";
  return `${text.replace(/\s*\n\s*/g, " ")}${usage}`;
}

/** The failure as `--json` prints it: a code a script can branch on, and the same reason as stderr. */
function errorJson(error: unknown): { error: { code: string; message: string } } {
  const code =
    error instanceof UsageError
      ? "usage"
      : error instanceof ConfigError
        ? "invalid_configuration"
        : error instanceof ConnectError
          ? codeToString(error.code)
          : "failed";
  return { error: { code, message: reason(error) } };
}

const argv = process.argv.slice(2);
main(argv, readEnv()).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    if (wantsJson(argv)) process.stdout.write(`${JSON.stringify(errorJson(error))}\n`);
    process.stderr.write(`caller-context: ${reason(error)}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  },
);
