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
 * A template's fragments, a value's slot, the end of a template's parameters,
 * a literal written into the text (sql.lit), or a node that is all text
 * (sql.ref, sql.id, sql.table), kept as the node itself.
 */
type Token = readonly string[] | typeof VALUE | typeof END | Literal | TextNode;

interface Literal {
  readonly literal: unknown;
}
interface TextNode {
  readonly text: OperationNode;
}

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
  let variants = variantsByTemplate.get(node.sqlFragments);
  if (variants === undefined) {
    variants = [];
    variantsByTemplate.set(node.sqlFragments, variants);
  }
  // A call is matched against the shapes met before without building its own: each call's statement allocates only
  // its values (a profile showed the walk that built one to be the service's largest allocator per call).
  for (const variant of variants) {
    const parameters: unknown[] = [];
    cursor = 0;
    if (matches(node, variant.shape, parameters) && cursor === variant.shape.length) {
      counts.known += 1;
      // Each query its own id: cancelling a statement checks it is still the one running.
      return { query: node, queryId: createQueryId(), sql: variant.sql, parameters };
    }
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
  shape.push(END);
  return true;
}

/** Where matches() is in the shape: one statement is matched at a time, synchronously. */
let cursor = 0;

/** Whether `node` walks as `shape` does from the cursor on, adding its values to `parameters`. */
function matches(node: OperationNode, shape: readonly Token[], parameters: unknown[]): boolean {
  const token = shape[cursor++];
  if (node.kind === "ValueNode") {
    const value = node as ValueNode;
    if (value.immediate) {
      return typeof token === "object" && "literal" in token && sameLiteral(token.literal, value.value);
    }
    parameters.push(value.value);
    return token === VALUE;
  }
  if (node.kind !== "RawNode") return typeof token === "object" && "text" in token && sameNode(token.text, node);
  const raw = node as RawNode;
  if (typeof token !== "object" || !Array.isArray(token) || !sameFragments(token, raw.sqlFragments)) return false;
  for (let i = 0; i < raw.parameters.length; i++) {
    if (!matches(raw.parameters[i]!, shape, parameters)) return false;
  }
  return shape[cursor++] === END;
}

/** sql.lit(1) and sql.lit("1") are written differently. */
function sameLiteral(a: unknown, b: unknown): boolean {
  return typeof a === typeof b && Object.is(a, b);
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
