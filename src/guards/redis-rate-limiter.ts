import { Redis } from "ioredis";
import { WINDOW_MS } from "../domain/rolling-window.ts";
import type { RateLimiter } from "./rate-limiter.ts";

// The same rolling window as src/domain/rolling-window.ts, kept in a Redis
// sorted set per key so every instance sees one window. The script runs
// atomically in Redis: prune, count, maybe add, report.

const SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local member = ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < max then
  redis.call('ZADD', key, now, member)
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local retry = now
if allowed == 0 then
  local nth = redis.call('ZRANGE', key, count - max, count - max, 'WITHSCORES')
  retry = tonumber(nth[2]) + window
end
local first = now
if oldest[2] then first = tonumber(oldest[2]) end
return {allowed, count, first + window, retry}
`;

export function createRedisRateLimiter(url: string): RateLimiter {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
  redis.on("error", () => {}); // reported per call; reconnects on its own
  redis.defineCommand("rollingWindowHit", { numberOfKeys: 1, lua: SCRIPT });
  let sequence = 0;
  const instance = Math.random().toString(36).slice(2);
  return {
    async hit(key, max, nowMs) {
      // Members must be unique even for two requests in the same millisecond.
      const member = `${nowMs}:${instance}:${sequence++}`;
      const [allowed, count, resetAtMs, retryAtMs] = (await (
        redis as unknown as { rollingWindowHit: (...args: unknown[]) => Promise<number[]> }
      ).rollingWindowHit(`ratelimit:${key}`, nowMs, WINDOW_MS, max, member)) as number[];
      return { allowed: allowed === 1, count, resetAtMs, retryAtMs };
    },
    async peek(key, nowMs) {
      const since = `(${nowMs - WINDOW_MS}`;
      const [count, oldest] = await Promise.all([
        redis.zcount(`ratelimit:${key}`, since, "+inf"),
        redis.zrangebyscore(`ratelimit:${key}`, since, "+inf", "WITHSCORES", "LIMIT", 0, 1),
      ]);
      const first = oldest[1] === undefined ? nowMs : Number(oldest[1]);
      return { count, resetAtMs: first + WINDOW_MS };
    },
    async close() {
      redis.disconnect();
    },
  };
}
