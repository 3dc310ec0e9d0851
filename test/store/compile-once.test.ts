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
import { compileOnce, compileOnceCounts } from "../../src/database/compile-once.ts";
import type { Db } from "../../src/store/database.ts";
import type { Schema } from "../../src/store/schema.ts";

// compileOnce must give what Kysely's own compiler gives, for every shape,
// whatever shapes were met before: Kysely is the reference here. The one
// difference allowed: an object a statement holds more than once is one
// parameter, so Kysely's text is compileOnce's with each $n numbered in order.

const db: Db = new Kysely<Schema>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

type Part = RawBuilder<unknown> | string | number | boolean | null | string[] | Date;

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
  | { readonly moment: number }
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
    // One of a statement's few Date objects, as its `now` is met in many places.
    fc.record({ moment: fc.integer({ min: 0, max: 2 }) }),
    of("tree"),
  ),
}));

function build(spec: Tree, moments = [new Date(1), new Date(2), new Date(3)]): RawBuilder<unknown> {
  const part = (p: PartSpec): Part => {
    if ("value" in p) return p.value;
    if ("moment" in p) return moments[p.moment]!;
    if ("raw" in p) return sql.raw(p.raw);
    if ("ref" in p) return sql.ref(p.ref);
    if ("lit" in p) return sql.lit(p.lit);
    return build(p, moments);
  };
  return templates[spec.template](part(spec.parts[0]), part(spec.parts[1]));
}

/** The text with its placeholders numbered in order, and each placeholder's value: Kysely's form. */
function asKyselyWritesIt(compiled: { sql: string; parameters: readonly unknown[] }) {
  const parameters: unknown[] = [];
  const sql = compiled.sql.replace(/\$(\d+)/g, (_, n: string) => {
    parameters.push(compiled.parameters[Number(n) - 1]);
    return `$${parameters.length}`;
  });
  return { sql, parameters };
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
            const same = compiled.sql === expected.sql && compiled.parameters.length === expected.parameters.length;
            // Kysely's own text is taken as it is (a placeholder followed by a literal digit, $1 then 0, reads
            // as $10 and cannot be renumbered).
            if (same) expect(compiled.parameters).toEqual(expected.parameters);
            else expect(asKyselyWritesIt(compiled)).toEqual({ sql: expected.sql, parameters: expected.parameters });
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

  it("makes an object the statement holds more than once one parameter, and equal values apart two", () => {
    const statement = (now: Date, other: Date, mode: string) =>
      sql`select ${now} as a, ${sql`${mode} = ${mode}`}, ${other}, ${sql`${now} > ${other}`}`;
    const now = new Date(10);
    const first = compileOnce(db, statement(now, new Date(10), "test"));
    expect(first.sql).toBe("select $1 as a, $2 = $3, $4, $1 > $4");
    expect(first.parameters).toEqual([now, "test", "test", new Date(10)]);
    const later = new Date(20);
    const second = compileOnce(db, statement(later, new Date(5), "live"));
    expect(second.sql).toBe(first.sql);
    expect(second.parameters).toEqual([later, "live", "live", new Date(5)]);
    // Two places that were two objects when the shape was met stay two parameters, whatever they hold later.
    const same = new Date(30);
    const third = compileOnce(db, statement(same, same, "test"));
    expect(third.sql).toBe(first.sql);
    expect(third.parameters).toEqual([same, "test", "test", same]);
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
