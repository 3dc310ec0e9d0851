import { PGlite } from "@electric-sql/pglite";
import { describe, expect, it } from "vitest";
import { pgliteModules } from "../../src/database/pglite-modules.ts";

// PGlite's WebAssembly is compiled once per process and every embedded
// database is opened with it (pglite-modules.ts says why).

describe("PGlite's compiled modules", () => {
  it("are compiled once per process and open a working database", async () => {
    const first = await pgliteModules();
    const second = await pgliteModules();
    expect(second.pgliteWasmModule).toBe(first.pgliteWasmModule);
    expect(second.initdbWasmModule).toBe(first.initdbWasmModule);
    const pglite = await PGlite.create({ ...first });
    try {
      const { rows } = await pglite.query<{ answer: number }>("select 41 + 1 as answer");
      expect(rows).toEqual([{ answer: 42 }]);
    } finally {
      await pglite.close();
    }
  });
});
