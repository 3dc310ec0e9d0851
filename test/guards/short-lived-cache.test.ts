import { expect, test } from "vitest";
import { CREDENTIAL_CACHE_TTL_MS, createShortLivedCache } from "../../src/guards/authenticate.ts";

// The credential cache's rules, on a monotonic clock the test moves.

function deferred<V>() {
  let resolve!: (value: V) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<V>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

test("a burst that finds no entry shares one lookup", async () => {
  const cache = createShortLivedCache<string>(() => 0);
  const read = deferred<string>();
  let lookups = 0;
  const answers = Array.from({ length: 50 }, () =>
    cache.get("k", () => {
      lookups++;
      return read.promise;
    }),
  );
  read.resolve("found");
  expect(await Promise.all(answers)).toEqual(Array(50).fill("found"));
  expect(lookups).toBe(1);
});

test("an entry is read again once its time is up, counted from when the read began", async () => {
  let now = 0;
  const cache = createShortLivedCache<number>(() => now);
  let lookups = 0;
  const lookUp = async () => ++lookups;
  expect(await cache.get("k", lookUp)).toBe(1);
  now = CREDENTIAL_CACHE_TTL_MS - 1;
  expect(await cache.get("k", lookUp)).toBe(1);
  now = CREDENTIAL_CACHE_TTL_MS;
  expect(await cache.get("k", lookUp)).toBe(2);
});

test("a lookup begun before clear() is not remembered after it", async () => {
  const cache = createShortLivedCache<string>(() => 0);
  const staleRead = deferred<string>();
  const before = cache.get("k", () => staleRead.promise);
  cache.clear(); // a revocation on this instance
  const after = cache.get("k", async () => "revoked");
  staleRead.resolve("valid");
  expect(await before).toBe("valid");
  expect(await after).toBe("revoked");
  expect(await cache.get("k", async () => "read again")).toBe("revoked");
});

test("a failed lookup fails everyone who waited on it and is not remembered", async () => {
  const cache = createShortLivedCache<string>(() => 0);
  const read = deferred<string>();
  const waiting = [cache.get("k", () => read.promise), cache.get("k", () => read.promise)];
  read.reject(new Error("connection lost"));
  for (const answer of waiting) await expect(answer).rejects.toThrow("connection lost");
  expect(await cache.get("k", async () => "back")).toBe("back");
});
