import { type Env, envToConfig } from "./config.ts";
import type { AdminAccess } from "./first-start.ts";
import { standardOutputInBlocks } from "./log-output.ts";
import { type RunningServer, startServer } from "./server.ts";
import { startupFailureLine } from "./startup-failure.ts";

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
  // Printed as soon as they are stored, before the workers start: a start that fails later has shown them.
  const showFirstStart = async (first: NonNullable<AdminAccess["firstStart"]>) => {
    // Shown once, on the first start, and never written to the log.
    await output.writeHeld();
    await writeOut(
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
  };
  server = await startServer(config, { logDestination: output.destination, onFirstStart: showFirstStart });
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

  try {
    await server.ready;
  } catch (error) {
    if (stopping !== undefined) return;
    process.stderr.write(`${startupFailureLine(error)}\n`);
    await stop("start-up failed", 1);
    return;
  }
  server.context.log.info({ url: server.url }, "caller context ready");
}

/** Resolves once standard output has taken the text: the secrets are shown before they count as shown. */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (error) => (error ? reject(error) : resolve()));
  });
}
