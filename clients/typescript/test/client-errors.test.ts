import { randomUUID } from "node:crypto";
import {
  AuthenticationError,
  type CallerContextClient,
  ConflictError,
  createCallerContextClient,
  IdempotencyKeyMismatchError,
  NotFoundError,
  type Protocol,
  QuotaExhaustedError,
  RateLimitedError,
  ValidationError,
} from "@caller-context/client";
import type { Interceptor } from "@connectrpc/connect";
import { revokeKey, setQuota } from "caller-context-test-helpers/admin-client.ts";
import { createAccountWithKey } from "caller-context-test-helpers/rest-client.ts";
import { useTestServer } from "caller-context-test-helpers/test-server-fixture.ts";
import { describe, expect, test } from "vitest";

const fixture = useTestServer();
const PROTOCOLS: readonly Protocol[] = ["connect", "grpc"];

/** A client whose attempts are counted, to tell a refusal that was retried from one that was not. */
function countingClient(protocol: Protocol, apiKey: string): { client: CallerContextClient; attempts: () => number } {
  let attempts = 0;
  const count: Interceptor = (next) => (req) => {
    attempts++;
    return next(req);
  };
  const client = createCallerContextClient({
    baseUrl: fixture.server.url,
    apiKey,
    protocol,
    interceptors: [count],
  });
  return { client, attempts: () => attempts };
}

async function using<T>(client: CallerContextClient, use: (client: CallerContextClient) => Promise<T>): Promise<T> {
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

const callId = () => `c-${randomUUID()}`;

describe.each(PROTOCOLS)("errors over %s", (protocol) => {
  test("an unknown key is an AuthenticationError, not retried", async () => {
    const { client, attempts } = countingClient(protocol, "sk_test_unknown");
    const error = await using(client, (c) =>
      c.start({ callId: callId(), identityHints: { ani: "+14155550100" } }),
    ).catch((e) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, message: "Invalid or missing API key" });
    expect(attempts()).toBe(1);
  });

  test("a revoked key is an AuthenticationError saying so", async () => {
    const { apiKey, keyId } = await createAccountWithKey(fixture.server.url);
    await revokeKey(fixture.server.url, keyId);
    const error = await using(createCallerContextClient({ baseUrl: fixture.server.url, apiKey, protocol }), (c) =>
      c.usage(),
    ).catch((e) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toBe("API key has been revoked");
  });

  test("an exhausted quota is a QuotaExhaustedError with the billing account, not retried", async () => {
    const { apiKey, accountId, billingAccountId } = await createAccountWithKey(fixture.server.url);
    await setQuota(fixture.server.url, accountId, 0);
    const { client, attempts } = countingClient(protocol, apiKey);
    const error = await using(client, (c) =>
      c.start({ callId: callId(), identityHints: { ani: "+14155550101" } }),
    ).catch((e) => e);
    expect(error).toBeInstanceOf(QuotaExhaustedError);
    expect(error).toMatchObject({ status: 402, quotaRemaining: 0, billingAccountId });
    expect(attempts()).toBe(1);
  });

  test("a rate-limit refusal is a RateLimitedError with its retry hint, not retried past the deadline", async () => {
    const { apiKey } = await createAccountWithKey(fixture.server.url, { tier: "free" });
    const { client, attempts } = countingClient(protocol, apiKey);
    await using(client, async (c) => {
      // Refused starts count in the window too: fill the free tier's 110 (100 + 10 % grace) without billing.
      for (let i = 0; i < 110; i++) {
        await c.start({ callId: callId(), identityHints: {} }).catch((e) => expect(e).toBeInstanceOf(ValidationError));
      }
      const before = attempts();
      const error = await c
        .start({ callId: callId(), identityHints: { ani: "+14155550102" } }, { timeoutMs: 2_000 })
        .catch((e) => e);
      expect(error).toBeInstanceOf(RateLimitedError);
      expect(error).toMatchObject({ status: 429, limit: 100, currentUsage: 110 });
      expect(error.retryAfterSeconds).toBeGreaterThan(2);
      expect(error.resetAt).toBeInstanceOf(Date);
      // The hint (tens of seconds) is past the 2 s deadline: one attempt, no wait.
      expect(attempts() - before).toBe(1);
    });
  });

  test("a start with a call_id in use is a ConflictError naming it", async () => {
    const id = callId();
    await using(
      createCallerContextClient({ baseUrl: fixture.server.url, apiKey: fixture.apiKey, protocol }),
      async (c) => {
        await c.start({ callId: id, identityHints: { ani: "+14155550103" } });
        const error = await c.start({ callId: id, identityHints: { ani: "+14155550103" } }).catch((e) => e);
        expect(error).toBeInstanceOf(ConflictError);
        expect(error.status).toBe(409);
        expect(error.message).toContain(id);
      },
    );
  });

  test("a second end of an ended call (another key) is a ConflictError", async () => {
    await using(
      createCallerContextClient({ baseUrl: fixture.server.url, apiKey: fixture.apiKey, protocol }),
      async (c) => {
        const started = await c.start({ callId: callId(), identityHints: { ani: "+14155550104" } });
        await c.end({ callId: started.callId, customerRef: started.customerRef });
        const error = await c.end({ callId: started.callId, customerRef: started.customerRef }).catch((e) => e);
        expect(error).toBeInstanceOf(ConflictError);
      },
    );
  });

  test("invalid input is a ValidationError with the service's issues", async () => {
    const { client, attempts } = countingClient(protocol, fixture.apiKey);
    const error = await using(client, (c) => c.start({ callId: callId(), identityHints: {} })).catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ status: 400, message: "Validation failed" });
    expect(error.issues.map((issue: { path: string[] }) => issue.path)).toContainEqual(["identity_hints"]);
    expect(attempts()).toBe(1);
  });

  test("an unknown customer_ref is a NotFoundError", async () => {
    const ref = randomUUID();
    const error = await using(
      createCallerContextClient({ baseUrl: fixture.server.url, apiKey: fixture.apiKey, protocol }),
      (c) => c.customers.get(ref),
    ).catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toContain(ref);
  });

  test("an Idempotency-Key reused with another end is an IdempotencyKeyMismatchError", async () => {
    await using(
      createCallerContextClient({ baseUrl: fixture.server.url, apiKey: fixture.apiKey, protocol }),
      async (c) => {
        const started = await c.start({ callId: callId(), identityHints: { ani: "+14155550105" } });
        const idempotencyKey = `key-${randomUUID()}`;
        await c.end({ callId: started.callId, customerRef: started.customerRef }, { idempotencyKey });
        const error = await c
          .end({ callId: started.callId, customerRef: started.customerRef, intent: "other" }, { idempotencyKey })
          .catch((e) => e);
        expect(error).toBeInstanceOf(IdempotencyKeyMismatchError);
        expect(error.status).toBe(422);
      },
    );
  });
});
