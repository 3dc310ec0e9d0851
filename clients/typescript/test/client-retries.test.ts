import { randomUUID } from "node:crypto";
import net from "node:net";
import {
  ConflictError,
  createCallerContextClient,
  DeadlineExceededError,
  IntentStatus,
  type Protocol,
  UnavailableError,
} from "@caller-context/client";
import type { Interceptor } from "@connectrpc/connect";
import { blockDatabase } from "caller-context-test-helpers/database-blocker.ts";
import { createAccountWithKey } from "caller-context-test-helpers/rest-client.ts";
import { useTestServer } from "caller-context-test-helpers/test-server-fixture.ts";
import { describe, expect, test } from "vitest";
import { startLossyProxy } from "./lossy-proxy.ts";

const fixture = useTestServer();
const PROTOCOLS: readonly Protocol[] = ["connect", "grpc"];
const callId = () => `c-${randomUUID()}`;
const newNumber = () => `+1415${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;

function counter(): { interceptor: Interceptor; count: () => number } {
  let count = 0;
  return {
    interceptor: (next) => (req) => {
      count++;
      return next(req);
    },
    count: () => count,
  };
}

describe.each(PROTOCOLS)("retries and deadlines over %s", (protocol) => {
  test("an end whose answer is lost is sent again with the same Idempotency-Key and saved once", async () => {
    const proxy = await startLossyProxy(protocol, fixture.server.url);
    const client = createCallerContextClient({ baseUrl: proxy.url, apiKey: fixture.apiKey, protocol });
    try {
      const ani = newNumber();
      const started = await client.start({ callId: callId(), identityHints: { ani } });
      proxy.loseNextAnswer("/EndCall");
      const ended = await client.end({
        callId: started.callId,
        customerRef: started.customerRef,
        intent: "refund",
        intentStatus: IntentStatus.OPEN,
      });

      const ends = proxy.seen.filter((request) => request.path.endsWith("/EndCall"));
      expect(ends).toHaveLength(2);
      expect(ends[0]?.idempotencyKey).toMatch(/^end-[0-9a-f-]{36}$/);
      expect(ends[1]?.idempotencyKey).toBe(ends[0]?.idempotencyKey);
      // The second answer is the first end's, replayed: one call ended, one open intent with one attempt.
      const record = await client.customers.get(started.customerRef);
      expect(record.calls).toHaveLength(1);
      expect(record.calls[0]?.callEnd).toEqual(ended.callEnd);
      expect(record.openIntents).toEqual([expect.objectContaining({ intent: "refund", attemptCount: 1 })]);
    } finally {
      client.close();
      await proxy.close();
    }
  });

  test("a start whose answer is lost is not sent again: the first one may have landed", async () => {
    const proxy = await startLossyProxy(protocol, fixture.server.url);
    const client = createCallerContextClient({ baseUrl: proxy.url, apiKey: fixture.apiKey, protocol });
    try {
      const id = callId();
      proxy.loseNextAnswer("/StartCall");
      const error = await client.start({ callId: id, identityHints: { ani: "+14155550141" } }).catch((e) => e);
      expect(error).toBeInstanceOf(UnavailableError);
      expect(error.requestMayHaveLanded).toBe(true);
      expect(proxy.seen.filter((request) => request.path.endsWith("/StartCall"))).toHaveLength(1);
      // It had: a second start would only have been refused.
      const again = await client.start({ callId: id, identityHints: { ani: "+14155550141" } }).catch((e) => e);
      expect(again).toBeInstanceOf(ConflictError);
    } finally {
      client.close();
      await proxy.close();
    }
  });

  test("a start to an address that refuses connections is tried maxAttempts times", async () => {
    const closedPort = await freePort();
    const { interceptor, count } = counter();
    const client = createCallerContextClient({
      baseUrl: `http://127.0.0.1:${closedPort}`,
      apiKey: fixture.apiKey,
      protocol,
      interceptors: [interceptor],
      retry: { maxAttempts: 3, initialBackoffMs: 10 },
      timeoutMs: 10_000,
    });
    try {
      const error = await client.start({ callId: callId(), identityHints: { ani: "+14155550142" } }).catch((e) => e);
      expect(error).toBeInstanceOf(UnavailableError);
      expect(error.requestMayHaveLanded).toBe(false);
      expect(count()).toBe(3);
    } finally {
      client.close();
    }
  });

  test("a start held up past its deadline fails once with DeadlineExceededError and the service undoes it", async () => {
    const { apiKey, accountId } = await createAccountWithKey(fixture.server.url);
    const { interceptor, count } = counter();
    const client = createCallerContextClient({
      baseUrl: fixture.server.url,
      apiKey,
      protocol,
      interceptors: [interceptor],
    });
    try {
      const id = callId();
      const block = await blockDatabase(fixture.server, accountId, 2_500);
      const error = await client
        .start({ callId: id, identityHints: { ani: "+14155550143" } }, { timeoutMs: 500 })
        .catch((e) => e);
      expect(error).toBeInstanceOf(DeadlineExceededError);
      expect(count()).toBe(1);
      await block.lifted;
      // The deadline travelled with the request: the service dropped the late start, so the call_id is free.
      const started = await client.start({ callId: id, identityHints: { ani: "+14155550143" } });
      expect(started.callId).toBe(id);
    } finally {
      client.close();
    }
  });
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
