import { ConfigError, envToConfig, readEnv } from "./config.ts";
import { startServer } from "./server.ts";

// The only entry: config → server → listen; SIGTERM/SIGINT → graceful close.

async function main(): Promise<void> {
  const config = envToConfig(readEnv());
  const server = await startServer(config);
  const first = server.adminAccess.firstStart;
  if (first !== undefined) {
    // Shown once, on the first start, and never written to the log.
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
  server.context.log.info({ url: server.url, database: server.context.database.kind }, "caller context listening");

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.context.log.info({ signal }, "shutting down");
    try {
      await server.close();
      process.exit(0);
    } catch (error) {
      server.context.log.error({ err: error }, "shutdown failed");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : (error?.stack ?? String(error))}\n`);
  process.exit(1);
});
