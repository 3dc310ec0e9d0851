import { defineConfig } from "vitest/config";

// Tests that take real time or real processes: two instances on one
// PostgreSQL and one Redis, and the rate-limit window on the real clock.
export default defineConfig({
  test: {
    include: ["test/slow/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
