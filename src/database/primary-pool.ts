import type { PostgresPool, PostgresPoolClient } from "kysely";
import pg from "pg";
import { isServerLost } from "./database-errors.ts";
import type { DatabaseHost } from "./database-url.ts";
import { type PrimaryLocator, ReadOnlyHostError } from "./primary-locator.ts";

// A pg pool that follows the primary. Each new connection goes to the host the
// locator chose and, when read-write is asked for, checks that it accepts
// writes before it is lent. A connection that finds its server gone or
// read-only makes the locator forget its choice, and every connection made
// before that is closed rather than lent again: after a failover or a restart
// the next request gets a connection to the server that answers now, not one
// the pool held from before.

export interface PrimaryPool {
  /** What Kysely's PostgresDialect borrows from. */
  readonly pool: PostgresPool;
  stats(): { total: number; idle: number; waiting: number };
}

/** What a connection knows of the choice it was made under. */
interface Placed {
  generation: number;
}

export function createPrimaryPool(
  locator: PrimaryLocator,
  Base: typeof pg.Client,
  options: pg.PoolConfig & { connectionString: string },
): PrimaryPool {
  class TargetClient extends Base implements Placed {
    generation = locator.generation;

    // pg's connect has a callback form (the pool's) and a promise form (Kysely's control connection).
    override connect(callback?: any): any {
      const connected = locator.current().then((host) => this.connectTo(host));
      if (!callback) return connected.then(() => this);
      connected.then(
        () => callback(null, this),
        (error: unknown) => callback(error),
      );
    }

    private async connectTo(host: DatabaseHost): Promise<void> {
      this.generation = locator.generation;
      // A hostless URL (a Unix socket in ?host=) keeps what the constructor read from it.
      if (host.host !== "") {
        this.host = host.host;
        this.port = host.port;
        (this as unknown as { connectionParameters: { host: string; port: number } }).connectionParameters.host =
          host.host;
        (this as unknown as { connectionParameters: { host: string; port: number } }).connectionParameters.port =
          host.port;
      }
      // The pool's connection timeout destroys the socket; one that passed while the host was chosen ends here.
      if ((this as unknown as { connection: { stream: { destroyed: boolean } } }).connection.stream.destroyed) {
        throw new Error("timeout exceeded when trying to connect");
      }
      try {
        await super.connect();
      } catch (error) {
        locator.forget();
        throw error;
      }
    }

    override query(config: any, values?: any, callback?: any): any {
      const result: unknown = super.query(config, values, callback);
      if (result instanceof Promise) {
        result.catch((error: unknown) => {
          if (isServerLost(error)) locator.forget();
        });
      }
      return result;
    }
  }

  const pool = new pg.Pool({
    ...options,
    Client: TargetClient,
    // pg-pool runs this on each new connection before lending it; a rejection closes it.
    onConnect: locator.readWrite ? (client: pg.PoolClient) => checkWritable(client, locator) : undefined,
  } as pg.PoolConfig);
  // An idle client that loses its server emits here; without a listener the process would crash.
  pool.on("error", (error) => {
    if (isServerLost(error)) locator.forget();
  });
  // So does a checked-out client between two statements of a transaction (the pool
  // listens only while a client is idle); its next statement fails instead, answered with 503.
  pool.on("connect", (client) => client.on("error", () => {}));

  async function connect(): Promise<PostgresPoolClient> {
    for (;;) {
      const client = (await pool.connect()) as pg.PoolClient & Placed;
      if (client.generation === locator.generation && isUsable(client)) return client;
      // Made before the choice was forgotten, or already broken: closed, never lent.
      client.release(true);
    }
  }

  return {
    pool: { Client: TargetClient, options: pool.options, connect, end: () => pool.end() } as PostgresPool,
    stats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

async function checkWritable(client: pg.PoolClient, locator: PrimaryLocator): Promise<void> {
  const { rows } = await client.query<{ transaction_read_only: string }>("show transaction_read_only");
  if (rows[0]?.transaction_read_only === "off") return;
  locator.forget();
  const { host, port } = client as unknown as { host: string; port: number };
  throw new ReadOnlyHostError(`database host ${host}:${port}`);
}

/** pg's own flags: a client that saw its connection fail is not queryable, one being ended is ending. */
function isUsable(client: pg.PoolClient): boolean {
  const flags = client as unknown as { _queryable?: boolean; _ending?: boolean; _ended?: boolean };
  return flags._queryable !== false && flags._ending !== true && flags._ended !== true;
}
