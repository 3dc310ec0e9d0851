import { defineConfig } from "vitest/config";

// Tests that take real time or real processes: two instances on one
// PostgreSQL and one Redis, and the rate-limit window on the real clock.
export default defineConfig({
  test: {
    include: ["test/slow/**/*.test.ts"],
    pool: "forks",
    // Replaced WebAssembly code (PGlite's, after V8 tiers it up) is kept rather than freed: freeing it is where
    // Node 24 aborts now and then under the suite's many embedded databases (docs/operations.md, nodejs/node#64500).
    execArgv: ["--no-wasm-code-gc"],
    maxWorkers: 2,
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
