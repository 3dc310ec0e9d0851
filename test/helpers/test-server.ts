import { type Config, envToConfig } from "../../src/config.ts";
import type { Clock } from "../../src/domain/clock.ts";
import { type RunningServer, startServer } from "../../src/server.ts";
import { createTestDatabase, type TestDatabase } from "./test-database.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789abcdefghij";
/** Seals stored secrets in tests, so that no key file is written beside the repository; "" for a key file. */
export const SECRETS_KEY = "dGVzdC1zZWNyZXRzLWtleS0wMTIzNDU2Nzg5YWJjZGU=";

export interface TestServer extends RunningServer {
  readonly config: Config;
  /** Lines the server logged, for tests that inspect them. */
  readonly logLines: string[];
  /** Closes the server and drops its database. */
  stop(): Promise<void>;
}

export interface TestServerOptions {
  /** Settings over the tests' own (an ephemeral port, the admin token, the secrets key). */
  readonly env?: Record<string, string>;
  readonly clock?: Clock;
  /** A database the caller owns and drops; without one, the server gets a fresh one, dropped at stop. */
  readonly database?: TestDatabase;
}

/** The real server on an ephemeral port, with a database of its own. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase());
  try {
    return await startOn(database, options);
  } catch (error) {
    // A start that fails (a setting refused, a stored secret unreadable) leaves no database of its own behind.
    if (options.database === undefined) await database.drop();
    throw error;
  }
}

async function startOn(database: TestDatabase, options: TestServerOptions): Promise<TestServer> {
  const config = envToConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    ADMIN_TOKEN,
    SECRETS_KEY,
    // Metrics have a listener of their own; a free port, as the API's.
    METRICS_PORT: "0",
    // The suites reach the admin API where they reach the rest: on the public port, the documented way back.
    // The default, a loopback listener of its own, is proved by test/slow/admin-listener.test.ts.
    ADMIN_LISTEN: "public",
    LOG_LEVEL: "info",
    // Suites send many bad keys on purpose; the failed-auth limit has a suite of its own.
    AUTH_FAILURES_PER_MINUTE: "100000",
    // Suites sign up many people from one address; the sign-up throttle has a suite of its own.
    SIGNUP_PER_MINUTE_PER_ADDRESS: "100000",
    SIGNUP_PER_MINUTE: "100000",
    // Suites send bursts at a busy machine on purpose, and a suite's start-up holds the event loop for
    // seconds; admission control and the event-loop bound have suites of their own.
    ADMISSION_INITIAL_LIMIT: "10000",
    ADMISSION_MIN_LIMIT: "10000",
    ADMISSION_MAX_LIMIT: "10000",
    ADMISSION_MAX_EVENT_LOOP_DELAY_MS: "0",
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...database.env,
    ...options.env,
  });
  const logLines: string[] = [];
  const server = await startServer(config, {
    clock: options.clock,
    logDestination: { write: (line: string) => void logLines.push(line) },
  });
  // A start that fails once listening (an unreadable stored secret, say) is closed, not left holding its port.
  await server.ready.catch(async (error) => {
    await server.close();
    throw error;
  });
  return {
    ...server,
    config,
    logLines,
    async stop() {
      await server.close();
      if (options.database === undefined) await database.drop();
    },
  };
}
