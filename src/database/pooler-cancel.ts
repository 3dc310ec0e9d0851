import net from "node:net";
import type { PostgresClient, PostgresClientConstructor } from "kysely";
import type pg from "pg";

// Cancelling a running statement through a transaction-mode pooler. Kysely
// cancels with `select pg_cancel_backend(<pid>)`, the pid being what the
// client was told at connection (its processID). Through PgBouncer that is
// PgBouncer's own random cancel key, not a backend's pid: the select would
// name no backend, or an unrelated one. PgBouncer does forward the protocol's
// CancelRequest (the client's pid and secret key, sent on a connection of its
// own) to the server connection running that client's statement, so that is
// what the control client sends instead.

const CANCEL_REQUEST_CODE = 80877102;

/** pg's client keeps both from the BackendKeyData message (null until then). */
interface KeyedClient extends pg.Client {
  readonly processID: number | null;
  readonly secretKey: number | null;
}

export interface PoolerCancel {
  /** Makes `client` cancellable by its processID once connected. */
  track(client: pg.Client): void;
  /** For Kysely's `controlClient`: understands its pg_cancel_backend and sends a CancelRequest. */
  readonly ControlClient: PostgresClientConstructor;
}

export function createPoolerCancel(): PoolerCancel {
  const byProcessId = new Map<number, KeyedClient>();
  class ControlClient {
    readonly #target: { host: string; port: number } | undefined;
    constructor(options: { connectionString?: string }) {
      this.#target = tcpTarget(options.connectionString);
    }
    async connect() {
      return this as unknown as PostgresClient;
    }
    end() {}
    async query(text: string): Promise<{ rows: never[] }> {
      const pid = /^select pg_cancel_backend\((-?\d+)\)$/.exec(text)?.[1];
      const client = pid === undefined ? undefined : byProcessId.get(Number(pid));
      if (typeof client?.processID === "number" && typeof client.secretKey === "number" && this.#target) {
        await sendCancel(this.#target, client.processID, client.secretKey);
      }
      return { rows: [] };
    }
  }
  return {
    track(client) {
      const keyed = client as KeyedClient;
      client.once("connect", () => {
        if (typeof keyed.processID === "number") byProcessId.set(keyed.processID, keyed);
      });
      client.once("end", () => {
        if (typeof keyed.processID === "number" && byProcessId.get(keyed.processID) === keyed) {
          byProcessId.delete(keyed.processID);
        }
      });
    },
    ControlClient: ControlClient as unknown as PostgresClientConstructor,
  };
}

/** Host and port of a postgres:// URL; undefined for a Unix socket (not reached this way). */
function tcpTarget(connectionString: string | undefined): { host: string; port: number } | undefined {
  if (connectionString === undefined) return undefined;
  const url = new URL(connectionString);
  if (url.hostname === "" || url.searchParams.has("host")) return undefined;
  return { host: decodeURIComponent(url.hostname), port: Number(url.port || 5432) };
}

/**
 * The protocol's CancelRequest: 16 bytes, no answer; the other side closes the connection once it has acted on it.
 * Not half-closed from here: PgBouncer drops a cancel whose sender hung up before it was passed on ("client
 * unexpected eof"), which it does on a server connection of its own, so most cancels were lost that way.
 */
function sendCancel(target: { host: string; port: number }, processId: number, secretKey: number): Promise<void> {
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  packet.writeInt32BE(processId, 8);
  packet.writeInt32BE(secretKey, 12);
  return new Promise((resolve) => {
    const socket = net.connect(target.port, target.host, () => socket.write(packet));
    socket.setTimeout(5_000, () => socket.destroy());
    socket.once("close", () => resolve());
    socket.once("error", () => resolve());
  });
}
