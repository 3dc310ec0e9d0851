import { afterAll, beforeAll } from "vitest";
import type { Clock } from "../../src/domain/clock.ts";
import { type CallClient, createCallClient, forKey, type KeyedCallClient, type Transport } from "./call-client.ts";
import { createAccountWithKey } from "./rest-client.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

export interface ServerFixture {
  readonly server: TestServer;
  /** An API key of a Growth account with plenty of credits. */
  readonly apiKey: string;
  readonly calls: CallClient;
  /** The fixture's key over one transport; usable at load time, resolved per call. */
  over(via: Transport): KeyedCallClient;
}

/**
 * Starts a server (and an account with a key) before the file's tests and
 * stops it after them. Read the fields inside tests or hooks, not at load time.
 */
export function useTestServer(options: { clock?: Clock; env?: Record<string, string> } = {}): ServerFixture {
  let server: TestServer | undefined;
  let apiKey: string | undefined;
  let calls: CallClient | undefined;
  beforeAll(async () => {
    server = await startTestServer(options);
    ({ apiKey } = await createAccountWithKey(server.url));
    calls = createCallClient(server.url);
  });
  afterAll(async () => {
    calls?.close();
    await server?.stop();
  });
  const fixture: ServerFixture = {
    get server() {
      return ready(server);
    },
    get apiKey() {
      return ready(apiKey);
    },
    get calls() {
      return ready(calls);
    },
    over: (via) => ({
      via,
      start: (body, headers) => forKey(fixture.calls, via, fixture.apiKey).start(body, headers),
      end: (body, headers) => forKey(fixture.calls, via, fixture.apiKey).end(body, headers),
    }),
  };
  return fixture;
}

function ready<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the test server is not started yet: use it inside a test or hook");
  return value;
}
