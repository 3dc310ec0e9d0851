import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  // The client packages' tests run on their sources: the LiveKit integration imports the client by its
  // package name, which resolves to the built dist/ otherwise.
  resolve: {
    alias: {
      "@caller-context/client": fileURLToPath(new URL("clients/typescript/src/index.ts", import.meta.url)),
    },
  },
  test: {
    include: ["test/**/*.test.ts", "clients/*/test/**/*.test.ts"],
    // The slow suite (two server processes, the real one-minute window) runs with `npm run test:slow`.
    exclude: [...configDefaults.exclude, "test/slow/**"],
    pool: "forks",
    // Replaced WebAssembly code (PGlite's, after V8 tiers it up) is kept rather than freed: freeing it is where
    // Node 24 aborts now and then under the suite's many embedded databases (docs/operations.md, nodejs/node#64500).
    execArgv: ["--no-wasm-code-gc"],
    // Files share their worker's process (two for the suite) instead of one process each: a process's start, its
    // imports and PGlite's compiled WebAssembly and fresh cluster (fresh-memory-cluster.ts) are paid twice rather
    // than once per file, which was most of the embedded suite's time (561 s against 213 s, the same 1,242 tests).
    // Every server a test starts has its own database, port and registries, so files do not see each other's.
    isolate: false,
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
