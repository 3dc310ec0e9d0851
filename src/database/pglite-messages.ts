// What crosses between the service and the embedded database's thread. A
// structured clone keeps an Error's message but drops the fields the store
// reads (the SQLSTATE `code`, `constraint`, `detail`...), so errors travel as
// their own plain fields and are rebuilt on the other side.

export type PgliteRequest =
  | { readonly id: number; readonly kind: "query"; readonly sql: string; readonly params: readonly unknown[] }
  | { readonly id: number; readonly kind: "close" }
  /** A consistent copy of the data directory: a checkpoint, then its files as an uncompressed tar. */
  | { readonly id: number; readonly kind: "snapshot" };

export type PgliteAnswer =
  | {
      readonly id: number;
      readonly ok: true;
      readonly rows: unknown[];
      readonly affectedRows: number | undefined;
      /** The answer to a snapshot request. */
      readonly snapshot?: Blob;
    }
  | { readonly id: number; readonly ok: false; readonly error: ErrorFields };

/** The first message of the thread: the database opened, or why it did not. */
export type PgliteOpening = { readonly kind: "ready" } | { readonly kind: "failed"; readonly error: ErrorFields };

export type ErrorFields = Readonly<Record<string, string | number | boolean | null>>;

/** An error's name, message and scalar fields (PGlite's DatabaseError carries PostgreSQL's as strings). */
export function errorToFields(error: unknown): ErrorFields {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const fields: Record<string, string | number | boolean | null> = { name: error.name, message: error.message };
  for (const [key, value] of Object.entries(error)) {
    // The statement's parameters stay behind: they may hold what the service was told to keep.
    if (key === "params" || key === "queryOptions") continue;
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) fields[key] = value;
  }
  return fields;
}

export function fieldsToError(fields: ErrorFields): Error {
  const error = new Error(String(fields.message ?? "embedded database error"));
  for (const [key, value] of Object.entries(fields)) {
    if (key !== "message")
      Object.defineProperty(error, key, { value, enumerable: key !== "name", writable: true, configurable: true });
  }
  return error;
}
