import {
  type AbortableQueryOptions,
  type CompiledQuery,
  createQueryId,
  type Kysely,
  type OperationNode,
  type QueryResult,
  type RawBuilder,
  type RawNode,
  type ValueNode,
} from "kysely";

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
//
// A value the statement holds more than once is one parameter: the very same
// object (its `now`, one Date, named twenty times by a call's statement), or
// the very same node (sql.val built once and embedded again: the tenant's
// account, tenantParameters in src/store/calls/call-statement.ts). Each $n is formatted by the client and
// parsed by PostgreSQL. Two values that are merely equal are never shared:
// which ones repeat is decided by the code path, like the rest of the shape, so
// a statement's text never depends on its data (two equal strings of different
// types sharing a $n would not plan).

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
type Token = readonly string[] | typeof VALUE | Again | Literal | TextNode;

/** The object of parameter `again` once more (the same object, so the same $n). */
interface Again {
  readonly again: number;
}
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
export function compileOnce<R, S>(db: Kysely<S>, query: RawBuilder<R>): CompiledQuery<R> {
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
  if (variants.length >= MAX_SHAPES_PER_TEMPLATE) {
    counts.byKysely += 1;
    return query.compile(db);
  }
  const compiled = query.compile(db);
  const shared = newShape(node, compiled.sql, true) ?? newShape(node, compiled.sql, false);
  if (shared === undefined) {
    counts.byKysely += 1;
    return compiled;
  }
  counts.newShape += 1;
  variants.push({ shape: shared.shape, sql: shared.sql });
  return { query: node, queryId: compiled.queryId, sql: shared.sql, parameters: shared.parameters };
}

/**
 * The shape of `node` and its text (Kysely's, `kyselySql`, with a repeated object's placeholders made one);
 * undefined when its values cannot be told apart from its text, or when Kysely's placeholders are not the
 * plain $1…$n in order that the renumbering expects (then the shape is taken again without sharing).
 */
function newShape(
  node: RawNode,
  kyselySql: string,
  share: boolean,
): { shape: Token[]; sql: string; parameters: unknown[] } | undefined {
  const walk: Walk = { shape: [], parameters: [], nodes: [], slotOfEach: [], share };
  if (!collect(node, walk)) return undefined;
  let seen = 0;
  let inOrder = true;
  const sql = kyselySql.replace(/\$(\d+)/g, (_, n: string) => {
    seen += 1;
    if (Number(n) !== seen) inOrder = false;
    return `$${(walk.slotOfEach[seen - 1] ?? 0) + 1}`;
  });
  if (!inOrder || seen !== walk.slotOfEach.length) return undefined;
  return { shape: walk.shape, sql, parameters: walk.parameters };
}

interface Walk {
  readonly shape: Token[];
  /** The statement's parameters: each value, a repeated one once. */
  readonly parameters: unknown[];
  /** The node each parameter was first met as. */
  readonly nodes: ValueNode[];
  /** For each value met, in order, its index in `parameters`. */
  readonly slotOfEach: number[];
  readonly share: boolean;
}

/** The parameter `node` repeats: the same node (a sql.val embedded again), or the same object; -1 when none. */
function sharedWith(walk: Walk, node: ValueNode): number {
  const byNode = walk.nodes.indexOf(node);
  if (byNode >= 0) return byNode;
  const { value } = node;
  return typeof value === "object" && value !== null ? walk.parameters.indexOf(value) : -1;
}

/** Runs `query` as its own execute() would, compiled once per shape. */
export function executeOnce<R, S>(
  db: Kysely<S>,
  query: RawBuilder<R>,
  options?: AbortableQueryOptions,
): Promise<QueryResult<R>> {
  return db.executeQuery(compileOnce(db, query), options);
}

/** Adds `node`'s shape; false when its values cannot be told apart from its text (Kysely compiles it). */
function collect(node: OperationNode, walk: Walk): boolean {
  const { shape } = walk;
  if (node.kind === "ValueNode") {
    const { immediate, value } = node as ValueNode;
    // sql.lit: the value is written into the text, so it is part of the shape.
    if (immediate) {
      shape.push({ literal: value });
      return true;
    }
    const again = walk.share ? sharedWith(walk, node as ValueNode) : -1;
    if (again >= 0) {
      shape.push({ again });
      walk.slotOfEach.push(again);
      return true;
    }
    shape.push(VALUE);
    walk.slotOfEach.push(walk.parameters.length);
    walk.parameters.push(value);
    walk.nodes.push(node as ValueNode);
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
    if (!collect(raw.parameters[i]!, walk)) return false;
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
    if (token === VALUE) {
      parameters.push(value.value);
      return at + 1;
    }
    // The object met before at that parameter, once more: no parameter of its own.
    return typeof token === "object" && "again" in token && parameters[token.again] === value.value ? at + 1 : NO_MATCH;
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
