import pg from "pg";
import { isDatabaseUnavailable } from "./database-errors.ts";
import type { DatabaseHost } from "./database-url.ts";

// Which of DATABASE_URL's hosts new connections go to, as libpq's
// target_session_attrs=read-write chooses: the hosts in the order given, the
// first that accepts a connection and (when read-write is asked for) reports
// `transaction_read_only = off`. The choice is kept until a connection to it
// fails or finds it read-only (forget), then made afresh by the next connection.

/** No host would do; SQLSTATE 08001, as libpq reports it, so it is answered 503. */
export class NoPrimaryError extends Error {
  readonly code = "08001";
  constructor(reasons: readonly string[]) {
    super(`no database host would do: ${reasons.join("; ")}`);
    this.name = "NoPrimaryError";
  }
}

/** A connection found its server read-only; SQLSTATE 25006, as a refused write reports it. */
export class ReadOnlyHostError extends Error {
  readonly code = "25006";
  constructor(which: string) {
    super(`${which} is read-only (a standby, or a primary being demoted or not yet writable)`);
    this.name = "ReadOnlyHostError";
  }
}

export interface PrimaryLocator {
  /** The host to connect to, chosen now if none is. */
  current(): Promise<DatabaseHost>;
  /** Counts the choices forgotten: a connection made under an older one is not to be lent again. */
  readonly generation: number;
  /** The chosen host failed or turned read-only: choose again, and drop what was connected to it. */
  forget(): void;
  /** Whether a connection to a chosen host must check that it accepts writes. */
  readonly readWrite: boolean;
}

export interface LocatorOptions {
  readonly hosts: readonly DatabaseHost[];
  readonly readWrite: boolean;
  /** How long one host may take to answer the probe. */
  readonly timeoutMs: number;
}

export function createPrimaryLocator({ hosts, readWrite, timeoutMs }: LocatorOptions): PrimaryLocator {
  let chosen: Promise<DatabaseHost> | undefined;
  let generation = 0;
  // One host and any server will do: nothing to choose, as with a plain URL.
  const fixed = hosts.length === 1 && !readWrite ? Promise.resolve(hosts[0]) : undefined;

  async function choose(): Promise<DatabaseHost> {
    const reasons: string[] = [];
    let refusal: unknown;
    for (const host of hosts) {
      const outcome = await probe(host, readWrite, timeoutMs);
      if (outcome === undefined) return host;
      reasons.push(`${host.label} ${outcome.reason}`);
      if (outcome.error !== undefined && !isDatabaseUnavailable(outcome.error)) refusal ??= outcome.error;
    }
    // A refused password or an unknown database is not an outage: it stops the start, as with one host.
    if (refusal !== undefined) throw refusal;
    throw new NoPrimaryError(reasons);
  }

  /** One probe at a time, shared by every connection waiting for it; a failed one is not kept. */
  function start(): Promise<DatabaseHost> {
    const probing = choose().catch((error) => {
      if (chosen === probing) chosen = undefined;
      throw error;
    });
    chosen = probing;
    return probing;
  }

  return {
    readWrite,
    get generation() {
      return generation;
    },
    current() {
      if (fixed) return fixed;
      if (chosen === undefined) return start();
      // A probe already under way may have found no primary just before one came: who joined it late probes
      // once more (together), rather than be refused for what was seen before it asked.
      return chosen.catch(() => chosen ?? start());
    },
    forget() {
      chosen = undefined;
      generation++;
    },
  };
}

/** Undefined when the host will do, else why not (and the error, when it failed). */
async function probe(
  host: DatabaseHost,
  readWrite: boolean,
  timeoutMs: number,
): Promise<{ reason: string; error?: unknown } | undefined> {
  const client = new pg.Client({
    connectionString: host.url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    if (!readWrite) return undefined;
    const { rows } = await client.query<{ transaction_read_only: string }>("show transaction_read_only");
    return rows[0]?.transaction_read_only === "off" ? undefined : { reason: "is read-only" };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = (error as Error).message;
    return { reason: typeof code === "string" ? `${code} ${message}` : message, error };
  } finally {
    await client.end().catch(() => {});
  }
}
