import fc from "fast-check";
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type RawBuilder,
  sql,
} from "kysely";
import { describe, expect, it } from "vitest";
import { compileOnce, compileOnceCounts } from "../../src/store/engine/compile-once.ts";
import type { Db } from "../../src/store/engine/database.ts";
import type { Schema } from "../../src/store/schema.ts";

// compileOnce must give exactly what Kysely's own compiler gives, for every
// shape, whatever shapes were met before: Kysely is the reference here.

const db: Db = new Kysely<Schema>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

type Part = RawBuilder<unknown> | string | number | boolean | null | string[];

// A few call sites, as the statements have: each literal's fragments are one array for every call.
const templates: ReadonlyArray<(a: Part, b: Part) => RawBuilder<unknown>> = [
  (a, b) => sql`select ${a} as x, ${b} as y`,
  (a, b) => sql`with t as (${a}) select * from t where v = ${b}`,
  (a, b) => sql`coalesce(${a}, ${b})`,
  (a, b) => sql`${a}${b}`,
];

interface Tree {
  readonly template: number;
  readonly parts: readonly [PartSpec, PartSpec];
}
type PartSpec =
  | { readonly value: string | number | boolean | null | string[] }
  | { readonly raw: string }
  | { readonly ref: string }
  | { readonly lit: number | boolean }
  | Tree;

const valueArb = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string()));
const { tree } = fc.letrec<{ tree: Tree; part: PartSpec }>((of) => ({
  tree: fc.record({
    template: fc.integer({ min: 0, max: templates.length - 1 }),
    parts: fc.tuple(of("part"), of("part")),
  }),
  part: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ value: valueArb }),
    fc.record({ raw: fc.constantFrom("true", "(select 1)", "a + b", "") }),
    fc.record({ ref: fc.constantFrom("q", "s", "q.slot", "calls.call_id") }),
    fc.record({ lit: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.boolean()) }),
    of("tree"),
  ),
}));

function build(spec: Tree): RawBuilder<unknown> {
  const part = (p: PartSpec): Part => {
    if ("value" in p) return p.value;
    if ("raw" in p) return sql.raw(p.raw);
    if ("ref" in p) return sql.ref(p.ref);
    if ("lit" in p) return sql.lit(p.lit);
    return build(p);
  };
  return templates[spec.template](part(spec.parts[0]), part(spec.parts[1]));
}

describe("compileOnce", () => {
  it("gives Kysely's text and parameters for any tree of templates, raw SQL, references, literals and values, in any order of shapes", () => {
    const before = compileOnceCounts();
    fc.assert(
      fc.property(fc.array(tree, { minLength: 1, maxLength: 8 }), (trees) => {
        for (const spec of trees) {
          // Twice: the first meets the shape, the second finds it known.
          for (let i = 0; i < 2; i++) {
            const query = build(spec);
            const expected = query.compile(db);
            const compiled = compileOnce(db, query);
            expect(compiled.sql).toBe(expected.sql);
            expect(compiled.parameters).toEqual(expected.parameters);
          }
        }
      }),
      { numRuns: 300 },
    );
    // Both paths were taken many times, not only Kysely's: shapes told apart among many under one template.
    const counts = compileOnceCounts();
    expect(counts.known - before.known).toBeGreaterThan(100);
    expect(counts.newShape - before.newShape).toBeGreaterThan(100);
  });

  it("hands back the very text compiled the first time, so its hash is computed once", () => {
    const statement = (a: number, b: string) => sql`select ${a} as a, ${sql`lower(${b})`} as b`;
    const first = compileOnce(db, statement(1, "X"));
    const second = compileOnce(db, statement(2, "Y"));
    expect(second.sql).toBe(first.sql);
    expect(second.parameters).toEqual([2, "Y"]);
    expect(second.queryId).not.toBe(first.queryId);
  });

  it("keeps a bounded number of shapes per statement, and compiles the rest with Kysely", () => {
    const statement = (column: string, value: number) => sql`select ${sql.raw(column)} from t where v = ${value}`;
    const before = compileOnceCounts();
    for (let i = 0; i < 100; i++) {
      const query = statement(`c${i}`, i);
      const compiled = compileOnce(db, query);
      expect(compiled.sql).toBe(query.compile(db).sql);
      expect(compiled.parameters).toEqual([i]);
    }
    const after = compileOnceCounts();
    expect(after.newShape - before.newShape).toBe(64);
    expect(after.byKysely - before.byKysely).toBe(36);
  });

  it("leaves a value inside any other node to Kysely", () => {
    const before = compileOnceCounts().byKysely;
    const query = sql`select ${sql.ref("calls.call_id")}, ${sql.lit(3)}, ${"v"} ${sql.val("w")}`;
    const compiled = compileOnce(db, query);
    expect(compiled.sql).toBe('select "calls"."call_id", 3, $1 $2');
    expect(compiled.parameters).toEqual(["v", "w"]);
    expect(compileOnceCounts().byKysely).toBe(before);
    const inner = sql`select ${sql`${"x"}`.as("y")}`;
    compileOnce(db, inner);
    expect(compileOnceCounts().byKysely).toBe(before + 1);
  });
});
