import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The slow suite (two server processes, the real one-minute window) runs with `npm run test:slow`.
    exclude: [...configDefaults.exclude, "test/slow/**"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
