import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";

// Each decision of the request's contract is made in one file, which a search
// of the sources finds: where an unexpected error is logged, where the quota's
// refusal is built.

const SOURCES = "src";

function filesSaying(pattern: RegExp): string[] {
  return readdirSync(SOURCES, { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".ts"))
    .filter((path) => pattern.test(readFileSync(join(SOURCES, path), "utf8")))
    .sort();
}

describe("each decision is made in one place", () => {
  test("an unexpected error is logged only by pipeline/unexpected-errors.ts", () => {
    expect(filesSaying(/"unexpected error"|"request failed"|"dashboard request failed"/)).toEqual([
      join("pipeline", "unexpected-errors.ts"),
    ]);
  });

  test("the quota's refusal is built only by pipeline/refusals.ts", () => {
    expect(filesSaying(/Monthly quota exhausted|"resource_exhausted"\)/)).toEqual([join("pipeline", "refusals.ts")]);
  });
});
