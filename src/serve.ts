import { ConfigError, type Env, envToConfig } from "./config.ts";
import type { AdminAccess } from "./first-start.ts";
import { standardOutputInBlocks } from "./log-output.ts";
import { SecretKeyError } from "./secrets/secret-box.ts";
import { type RunningServer, startServer } from "./server.ts";
import { DataDirLockedError } from "./store/engine/data-dir-lock.ts";
import { DataDirModeError } from "./store/engine/data-dir-mode.ts";
import { DatabaseWaitError } from "./wait-for-database.ts";

// Runs the service in this process until SIGTERM or SIGINT: config → server →
// listening → ready. Shared by `node src/main.ts` and `caller-context serve`.

/** Resolves once the service is ready; the process exits on a signal or a failed start-up. */
export async function serve(env: Env): Promise<void> {
  const config = envToConfig(env);
  const output = standardOutputInBlocks();
  // Signals are ours from the first moment: one that arrives while the embedded
  // database opens still ends in a graceful close and exit 0.
  let stopping: string | undefined;
  let server: RunningServer | undefined;
  const stop = async (reason: string, code: number) => {
    if (stopping !== undefined || server === undefined) {
      stopping ??= reason;
      return;
    }
    stopping = reason;
    server.context.log.info({ reason }, "shutting down");
    try {
      await server.close();
      await output.close();
      process.exit(code);
    } catch (error) {
      server.context.log.error({ err: error }, "shutdown failed");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM", 0));
  process.on("SIGINT", () => void stop("SIGINT", 0));
  server = await startServer(config, { logDestination: output.destination });
  const key = server.secretsKey;
  if (key.kind === "file") {
    server.context.log.info({ keyFile: key.path }, "stored secrets are sealed with the key in this file");
    if (key.created) {
      await output.writeHeld();
      process.stdout.write(
        `\nSecrets key created: ${key.path}\n  Back it up with the data: without it the stored platform secrets cannot be read.\n`,
      );
    }
  }
  const early = stopping;
  if (early !== undefined) {
    stopping = undefined;
    await stop(early, 0);
    return;
  }

  let access: AdminAccess;
  try {
    access = await server.ready;
  } catch (error) {
    if (stopping !== undefined) return;
    process.stderr.write(`${oneLine(error)}\n`);
    await stop("start-up failed", 1);
    return;
  }
  const first = access.firstStart;
  if (first !== undefined) {
    // Shown once, on the first start, and never written to the log.
    await output.writeHeld();
    process.stdout.write(
      [
        "",
        "First start: save these now, they are not shown again.",
        `  ADMIN_TOKEN=${first.adminToken}`,
        ...(first.defaultAccount
          ? [`  account:   ${first.defaultAccount.accountId}`, `  API key:   ${first.defaultAccount.apiKey}`]
          : []),
        "",
      ].join("\n"),
    );
  }
  server.context.log.info({ url: server.url }, "caller context ready");
}

/** Expected start-up failures are one line; anything else keeps its stack. */
export function oneLine(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  const expected = [DataDirLockedError, DataDirModeError, DatabaseWaitError, SecretKeyError];
  if (expected.some((kind) => error instanceof kind)) return `caller-context: ${(error as Error).message}`;
  return (error as Error)?.stack ?? String(error);
}
