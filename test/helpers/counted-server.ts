import type { Db } from "../../src/store/database.ts";
import { NO_BACKGROUND_JOBS } from "./database-measures.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

/**
 * A server whose statements a test counts, and its database: one connection, so each statement runs on the plan
 * made on it, and no background job touching blocks or indexes meanwhile.
 */
export async function startCountedServer(): Promise<{ server: TestServer; db: Db }> {
  const server = await startTestServer({ env: { DB_POOL_SIZE: "1", ...NO_BACKGROUND_JOBS } });
  return { server, db: server.context.database.db };
}
