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

/**
 * A template's fragments, a value's slot, a literal written into the text
 * (sql.lit), or a node that is all text (sql.ref, sql.id, sql.table), kept as
 * the node itself. A template's fragments also say how many parameters
 * follow: Kysely's raw nodes hold one fewer parameter than fragments.
 */
type Token = readonly string[] | typeof VALUE | Literal | TextNode;

interface Literal {
  readonly literal: unknown;
}
interface TextNode {
  readonly text: OperationNode;
}

const VALUE = Symbol("value");

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
  let variants = variantsByTemplate.get(node.sqlFragments);
  if (variants === undefined) {
    variants = [];
    variantsByTemplate.set(node.sqlFragments, variants);
  }
  // A call is matched against the shapes met before without building its own: each call's statement allocates only
  // its values (a profile showed the walk that built one to be the service's largest allocator per call).
  const parameters: unknown[] = [];
  for (const variant of variants) {
    if (matchedUpTo(node, variant.shape, 0, parameters) === variant.shape.length) {
      counts.known += 1;
      // Each query its own id: cancelling a statement checks it is still the one running.
      return { query: node, queryId: createQueryId(), sql: variant.sql, parameters };
    }
    parameters.length = 0;
  }
  const shape: Token[] = [];
  if (variants.length >= MAX_SHAPES_PER_TEMPLATE || !collect(node, shape)) {
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

/** Adds `node`'s shape; false when its values cannot be told apart from its text (Kysely compiles it). */
function collect(node: OperationNode, shape: Token[]): boolean {
  if (node.kind === "ValueNode") {
    const value = node as ValueNode;
    // sql.lit: the value is written into the text, so it is part of the shape.
    shape.push(value.immediate ? { literal: value.value } : VALUE);
    return true;
  }
  if (node.kind !== "RawNode") {
    // Any other node (sql.ref, sql.id, sql.table) is all text when it holds no value.
    if (JSON.stringify(node).includes('"ValueNode"')) return false;
    shape.push({ text: node });
    return true;
  }
  const raw = node as RawNode;
  shape.push(raw.sqlFragments);
  for (let i = 0; i < raw.parameters.length; i++) {
    if (!collect(raw.parameters[i]!, shape)) return false;
  }
  return true;
}

const NO_MATCH = -1;

/**
 * Where in `shape` the walk of `node` ends when it walks as the shape does from `at` on, adding its values to
 * `parameters`; NO_MATCH when it does not.
 */
function matchedUpTo(node: OperationNode, shape: readonly Token[], at: number, parameters: unknown[]): number {
  const token = shape[at];
  if (node.kind === "ValueNode") {
    const value = node as ValueNode;
    if (value.immediate) {
      // sql.lit(1) and sql.lit("1") are written differently: Object.is tells them apart too.
      const same = typeof token === "object" && "literal" in token && Object.is(token.literal, value.value);
      return same ? at + 1 : NO_MATCH;
    }
    parameters.push(value.value);
    return token === VALUE ? at + 1 : NO_MATCH;
  }
  if (node.kind !== "RawNode") {
    return typeof token === "object" && "text" in token && sameNode(token.text, node) ? at + 1 : NO_MATCH;
  }
  const raw = node as RawNode;
  if (typeof token !== "object" || !Array.isArray(token) || !sameFragments(token, raw.sqlFragments)) return NO_MATCH;
  let next = at + 1;
  for (let i = 0; i < raw.parameters.length && next !== NO_MATCH; i++) {
    next = matchedUpTo(raw.parameters[i]!, shape, next, parameters);
  }
  return next;
}

/** Two nodes of plain data (Kysely's nodes are frozen objects and arrays of strings and nodes), compared by value. */
function sameNode(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  if (keysA.length !== Object.keys(b).length) return false;
  for (const key of keysA) {
    if (!sameNode((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/** sql.raw's fragments are a new array on every call; a template literal's are the same array. */
function sameFragments(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
