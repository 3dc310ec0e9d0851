import pg from "pg";

// A statement sent through a transaction-mode pooler together with the
// service's plan settings, set for the statement's own transaction in the
// same round trip (planSettingsForTransaction), all unnamed, with one Sync:
// everything up to the Sync runs on one server connection, and the pooler
// hands the connection on at the Sync's ReadyForQuery with nothing left on it
// (a named statement would stay behind on a connection this client may never
// see again).
//
// - "before": a statement with parameters outside a transaction. The settings'
//   Parse/Bind/Execute, then the statement's: it is planned (at its Bind) with
//   the settings in force, and they end with its implicit transaction.
// - "after": BEGIN. The settings run inside the transaction it opens and hold
//   to its end; a SET LOCAL of the transaction's own (a statement timeout of 0
//   for a bulk load) comes later and wins, as it does on PostgreSQL itself.

/** What node-postgres's Query does with the protocol; its typings leave these out. */
interface QueryProtocol extends pg.Submittable {
  prepare(connection: Connection): void;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: Connection): void;
}

interface Connection {
  parse(message: { text: string }): void;
  bind(message: object): void;
  describe(message: { type: "P"; name: string }): void;
  execute(message: object): void;
  sync(): void;
}

type Callback = (error: Error | null, result: pg.QueryResult) => void;

type QueryConfig = pg.QueryConfig & { callback: Callback; queryMode: "extended" };

const Query = pg.Query as unknown as new (config: QueryConfig) => QueryProtocol;

export class SettingsQuery extends Query {
  readonly #settings: string;
  readonly #order: "before" | "after";
  /** CommandCompletes seen; the settings' one (and their row, which has no description) is not the caller's. */
  #completed = 0;

  constructor(settings: string, order: "before" | "after", text: string, values: unknown[], callback: Callback) {
    // Extended even without parameters (BEGIN): the simple protocol's Query carries one statement text only.
    super({ text, values, callback, queryMode: "extended" });
    this.#settings = settings;
    this.#order = order;
  }

  override prepare(connection: Connection): void {
    if (this.#order === "before") {
      this.#sendSettings(connection);
      super.prepare(connection);
      return;
    }
    connection.parse({ text: (this as unknown as { text: string }).text });
    connection.bind({});
    connection.describe({ type: "P", name: "" });
    connection.execute({});
    this.#sendSettings(connection);
    connection.sync();
  }

  override handleDataRow(message: unknown): void {
    if (!this.#isSettings()) super.handleDataRow(message);
  }

  override handleCommandComplete(message: unknown, connection: Connection): void {
    const settings = this.#isSettings();
    this.#completed += 1;
    if (!settings) super.handleCommandComplete(message, connection);
  }

  #sendSettings(connection: Connection): void {
    connection.parse({ text: this.#settings });
    connection.bind({});
    connection.execute({});
  }

  /** Whether what arrives now answers the settings: first when sent before, second when after. */
  #isSettings(): boolean {
    return this.#order === "before" ? this.#completed === 0 : this.#completed === 1;
  }
}
