import { Redis } from "ioredis";

// Whether the Redis the scale-out phase's instances would share answers, and
// its URL fit for a report (the password hidden).

/** Why Redis cannot be used, or undefined when it answers PING. */
export async function redisProblem(url: string): Promise<string | undefined> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // The error event carries the cause (ECONNREFUSED); the rejection only says the connection closed.
  let cause: string | undefined;
  redis.on("error", (error: Error) => {
    cause ??= error.message;
  });
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    return cause ?? (error instanceof Error ? error.message : String(error));
  } finally {
    redis.disconnect();
  }
}

export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}
