import pg from "pg";

// A statement with parameters sent through a transaction-mode pooler, with the
// service's plan settings set for its own transaction in the same round trip:
// Parse/Bind/Execute of the settings (planSettingsForTransaction), then the
// statement's own Parse/Bind/Describe/Execute, then one Sync. Everything up to
// the Sync is one transaction on one server connection, so the settings hold
// for the statement's plan (made at its Bind) and end with it; the pooler
// hands the connection on at the Sync's ReadyForQuery, with nothing left behind.
// Both statements are unnamed: a named one would stay on a server connection
// this client may never see again.

/** What node-postgres's Query does with the protocol; its typings leave these out. */
interface QueryProtocol extends pg.Submittable {
  prepare(connection: Connection): void;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: Connection): void;
}

interface Connection {
  parse(message: { text: string }): void;
  bind(message: object): void;
  execute(message: object): void;
}

const Query = pg.Query as unknown as new (config: pg.QueryConfig & { callback: Callback }) => QueryProtocol;

type Callback = (error: Error | null, result: pg.QueryResult) => void;

export class SettingsFirstQuery extends Query {
  readonly #settings: string;
  /** Until the settings' CommandComplete, what arrives is theirs (one row, no description), not the caller's. */
  #settingsDone = false;

  constructor(settings: string, text: string, values: unknown[], callback: Callback) {
    super({ text, values, callback });
    this.#settings = settings;
  }

  override prepare(connection: Connection): void {
    connection.parse({ text: this.#settings });
    connection.bind({});
    connection.execute({});
    super.prepare(connection);
  }

  override handleDataRow(message: unknown): void {
    if (this.#settingsDone) super.handleDataRow(message);
  }

  override handleCommandComplete(message: unknown, connection: Connection): void {
    if (this.#settingsDone) {
      super.handleCommandComplete(message, connection);
      return;
    }
    this.#settingsDone = true;
  }
}
