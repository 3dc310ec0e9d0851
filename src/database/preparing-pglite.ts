import { messages, type PGlite, parse, protocol } from "@electric-sql/pglite";
import type { PgliteQueryable, PgliteResult } from "./pglite-thread.ts";

// PGlite's query() parses, analyses and plans every statement afresh, in
// WebAssembly, and enters the database six times to do it. This prepares each
// statement with parameters once, as a named statement, and then binds and
// executes it by name in a single entry; a statement without parameters
// (begin, commit, DDL) is parsed and run in a single entry too. It lives
// beside PGlite (on the database's thread), whose one session holds the names
// and their plans for as long as it lives (plan-settings.ts).

/** More distinct statements than the service sends; past it, the least recently used is closed. */
const DEFAULT_CAPACITY = 500;

interface Prepared {
  readonly name: string;
  /** The parameters' type oids, as PostgreSQL inferred them: they choose each value's serializer. */
  readonly types: readonly number[];
}

export class PreparingPglite implements PgliteQueryable {
  readonly #pglite: PGlite;
  readonly #capacity: number;
  /** By statement text, least recently used first. */
  readonly #prepared = new Map<string, Prepared>();
  #nextName = 1;

  constructor(pglite: PGlite, { capacity = DEFAULT_CAPACITY } = {}) {
    this.#pglite = pglite;
    this.#capacity = capacity;
  }

  /** Statements prepared now; tests read it. */
  get preparedCount(): number {
    return this.#prepared.size;
  }

  query<R>(text: string, params: unknown[] = []): Promise<PgliteResult<R>> {
    if (this.#pglite.closed) return Promise.reject(new Error("PGlite is closed"));
    return this.#pglite.runExclusive(async () => {
      try {
        const answer = params.length === 0 ? await this.#runOnce(text) : await this.#runPrepared(text, params);
        const result = parse.parseResults(answer, this.#pglite.parsers)[0];
        return { rows: (result?.rows ?? []) as R[], affectedRows: result?.affectedRows };
      } catch (error) {
        // The fields PGlite's own query() adds to the errors it throws.
        if (error instanceof messages.DatabaseError) Object.assign(error, { query: text, params });
        throw error;
      }
    });
  }

  close(): Promise<void> {
    return this.#pglite.close();
  }

  async #runOnce(text: string): Promise<messages.BackendMessage[]> {
    const { serialize } = protocol;
    return this.#exec(serialize.parse({ text }), serialize.bind({}), ...portalAndSync());
  }

  async #runPrepared(text: string, params: unknown[]): Promise<messages.BackendMessage[]> {
    const statement = this.#use(text) ?? (await this.#prepare(text));
    const values = params.map((param, i) => this.#serialize(param, statement.types[i]));
    try {
      return await this.#exec(protocol.serialize.bind({ statement: statement.name, values }), ...portalAndSync());
    } catch (error) {
      // The statement no longer holds (a table it reads changed shape, its name was lost): prepare it afresh next time.
      if (isStatementError(error)) await this.#forget(text);
      throw error;
    }
  }

  #use(text: string): Prepared | undefined {
    const statement = this.#prepared.get(text);
    if (statement !== undefined) {
      this.#prepared.delete(text);
      this.#prepared.set(text, statement);
    }
    return statement;
  }

  /** Parses and describes a statement under a new name; one that fails to parse leaves nothing behind. */
  async #prepare(text: string): Promise<Prepared> {
    const name = `cc_${this.#nextName++}`;
    const { serialize } = protocol;
    const described = await this.#exec(
      serialize.parse({ name, text }),
      serialize.describe({ type: "S", name }),
      serialize.sync(),
    );
    const statement = { name, types: parse.parseDescribeStatementResults(described) };
    this.#prepared.set(text, statement);
    const oldest = this.#prepared.keys().next().value;
    if (this.#prepared.size > this.#capacity && oldest !== undefined) await this.#forget(oldest);
    return statement;
  }

  async #forget(text: string): Promise<void> {
    const statement = this.#prepared.get(text);
    if (statement === undefined) return;
    this.#prepared.delete(text);
    const { serialize } = protocol;
    // A close that fails leaves a statement nobody names again: only its memory is lost.
    await this.#pglite.execProtocol(concat([serialize.close({ type: "S", name: statement.name }), serialize.sync()]), {
      throwOnError: false,
    });
  }

  /** As PGlite's query() serializes a parameter: by the type PostgreSQL gave it, else as text. */
  #serialize(param: unknown, type: number | undefined): string | null {
    if (param === null || param === undefined) return null;
    const serializer = type === undefined ? undefined : this.#pglite.serializers[type];
    return serializer ? serializer(param) : String(param);
  }

  /** One entry into the database; throws the first error PostgreSQL reported. */
  async #exec(...parts: Uint8Array[]): Promise<messages.BackendMessage[]> {
    return (await this.#pglite.execProtocol(concat(parts))).messages;
  }
}

function portalAndSync(): Uint8Array[] {
  const { serialize } = protocol;
  return [serialize.describe({ type: "P" }), serialize.execute({}), serialize.sync()];
}

/**
 * Errors about the statement rather than the data: feature not supported
 * (0A000 "cached plan must not change result type"), unknown statement name
 * (26000), syntax or rule violations on re-analysis (42…), internal (XX…).
 */
function isStatementError(error: unknown): boolean {
  if (!(error instanceof messages.DatabaseError)) return false;
  const code = error.code ?? "";
  return ["0A", "26", "42", "XX"].includes(code.slice(0, 2));
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}
