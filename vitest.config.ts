import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // The client packages' tests import the packages by name, and the service's test helpers and the protos'
  // generated code by an alias: here they resolve to the sources, and in .ci/ts-clients, which runs the same tests
  // in a project of their own, the packages resolve to the installed tarballs.
  resolve: {
    alias: [
      { find: "@caller-context/client", replacement: here("clients/typescript/src/index.ts") },
      { find: "@caller-context/livekit-agents", replacement: here("clients/livekit-agents/src/index.ts") },
      { find: /^caller-context-test-helpers\/(.*)$/, replacement: here("test/helpers/$1") },
      { find: /^caller-context-proto\/(.*)$/, replacement: here("gen/callercontext/v1/$1") },
    ],
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
