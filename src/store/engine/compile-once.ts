import {
  type AbortableQueryOptions,
  type CompiledQuery,
  createQueryId,
  type OperationNode,
  type QueryResult,
  type RawBuilder,
  type RawNode,
  type ValueNode,
} from "kysely";
import type { Db } from "./database.ts";

// The call statements are long CTEs built from `sql` templates, and their
// text depends only on which templates they are made of, never on the values:
// each value becomes a $n placeholder. Compiling one with Kysely walks the
// whole tree and concatenates its text afresh on every call, and the pg
// client then hashes that new text to find its prepared statement. Here a
// statement is compiled once per shape: each call only collects its values
// in order, and gets the same text (the same string, whose hash is cached).
//
// The shape is the sequence of templates and value slots met in a depth-first
// walk, compared fragment by fragment; a template literal's fragments are the
// same strings on every call. Literals (sql.lit) and references (sql.ref) are
// text, and part of the shape. A tree with a value inside any other node is
// compiled by Kysely as before.

interface Variant {
  readonly shape: readonly Token[];
  readonly sql: string;
}

/** A template's fragments, a value's slot, or the end of a template's parameters. */
type Token = readonly string[] | typeof VALUE | typeof END;

const VALUE = Symbol("value");
const END = Symbol("end");

/** By the outermost template's fragments (one literal in the code), the shapes met so far. */
const variantsByTemplate = new WeakMap<readonly string[], Variant[]>();
/**
 * Shapes kept per outermost template. The code's statements have a few each; more means a shape that varies
 * with the data (sql.raw of a value), and those are compiled by Kysely rather than kept without bound.
 */
const MAX_SHAPES_PER_TEMPLATE = 64;

/** How each statement was compiled so far: by a shape met before, as a new shape, or by Kysely (tests read it). */
const counts = { known: 0, newShape: 0, byKysely: 0 };

export function compileOnceCounts(): Readonly<typeof counts> {
  return { ...counts };
}

/** The same as `query.compile(db)`, without compiling a shape met before. */
export function compileOnce<R>(db: Db, query: RawBuilder<R>): CompiledQuery<R> {
  const node = query.toOperationNode();
  const shape: Token[] = [];
  const parameters: unknown[] = [];
  if (!collect(node, shape, parameters)) {
    counts.byKysely += 1;
    return query.compile(db);
  }
  let variants = variantsByTemplate.get(node.sqlFragments);
  if (variants === undefined) {
    variants = [];
    variantsByTemplate.set(node.sqlFragments, variants);
  }
  const known = variants.find((variant) => sameShape(variant.shape, shape));
  // Each query its own id: cancelling a statement checks it is still the one running.
  if (known !== undefined) {
    counts.known += 1;
    return { query: node, queryId: createQueryId(), sql: known.sql, parameters };
  }
  if (variants.length >= MAX_SHAPES_PER_TEMPLATE) {
    counts.byKysely += 1;
    return query.compile(db);
  }
  counts.newShape += 1;
  const compiled = query.compile(db);
  variants.push({ shape, sql: compiled.sql });
  return compiled;
}

/** Runs `query` as its own execute() would, compiled once per shape. */
export function executeOnce<R>(db: Db, query: RawBuilder<R>, options?: AbortableQueryOptions): Promise<QueryResult<R>> {
  return db.executeQuery(compileOnce(db, query), options);
}

/** Adds `node`'s shape and values; false when its values cannot be told apart from its text (Kysely compiles it). */
function collect(node: OperationNode, shape: Token[], parameters: unknown[]): boolean {
  if (node.kind === "ValueNode") {
    const value = node as ValueNode;
    // sql.lit: the value is written into the text, so it is part of the shape.
    if (value.immediate) shape.push([`${OTHER}lit:${typeof value.value}:${String(value.value)}`]);
    else {
      shape.push(VALUE);
      parameters.push(value.value);
    }
    return true;
  }
  if (node.kind !== "RawNode") {
    // Any other node (sql.ref, sql.id, sql.table) is all text when it holds no value: its JSON is its shape.
    const json = JSON.stringify(node);
    if (json.includes('"ValueNode"')) return false;
    shape.push([`${OTHER}${json}`]);
    return true;
  }
  const raw = node as RawNode;
  shape.push(raw.sqlFragments);
  for (const child of raw.parameters) {
    if (!collect(child, shape, parameters)) return false;
  }
  shape.push(END);
  return true;
}

/** Starts the token of a node other than a template: no SQL text holds a NUL, so no fragment equals one. */
const OTHER = "\u0000";

function sameShape(a: readonly Token[], b: readonly Token[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === "symbol" || typeof y === "symbol" || !sameFragments(x, y)) return false;
  }
  return true;
}

/** sql.raw's fragments are a new array on every call; a template literal's are the same array. */
function sameFragments(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
