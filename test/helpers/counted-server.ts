import type { Db } from "../../src/store/database.ts";
import { createCallClient, forKey, type KeyedCallClient, type Transport } from "./call-client.ts";
import { NO_BACKGROUND_JOBS } from "./database-measures.ts";
import { createAccountWithKey } from "./rest-client.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

/**
 * A server whose statements a test counts, and its database: one connection, so each statement runs on the plan
 * made on it, and no background job touching blocks or indexes meanwhile.
 */
export async function startCountedServer(): Promise<{ server: TestServer; db: Db }> {
  const server = await startTestServer({ env: { DB_POOL_SIZE: "1", ...NO_BACKGROUND_JOBS } });
  return { server, db: server.context.database.db };
}

/** A counted server with an account, and a client of its calls over one transport. */
export interface CountedCalls {
  readonly server: TestServer;
  readonly db: Db;
  readonly accountId: string;
  readonly calls: KeyedCallClient;
  /** Closes the client and stops the server. */
  close(): Promise<void>;
}

export async function startCountedCalls(via: Transport): Promise<CountedCalls> {
  const { server, db } = await startCountedServer();
  const client = createCallClient(server.url);
  const account = await createAccountWithKey(server.url);
  return {
    server,
    db,
    accountId: account.accountId,
    calls: forKey(client, via, account.apiKey),
    async close() {
      client.close();
      await server.stop();
    },
  };
}
