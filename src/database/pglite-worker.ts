import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { errorToFields, type PgliteAnswer, type PgliteOpening, type PgliteRequest } from "./pglite-messages.ts";
import type { PgliteModules } from "./pglite-modules.ts";
import type { PgliteQueryable } from "./pglite-thread.ts";
import { planSettingsStatement } from "./plan-settings.ts";
import { PreparingPglite } from "./preparing-pglite.ts";
import { snapshotOf } from "./snapshot.ts";

// The embedded database on a thread of its own, so its WASM and the service's
// JavaScript run on different cores. It answers requests one at a time, in
// the order sent; the service holds the data directory's lock and lends the
// connection to one holder at a time (pglite-dialect.ts).

const port = parentPort;
if (port === null) throw new Error("pglite-worker.ts runs as a worker thread (see pglite-thread.ts)");
const { dataDir, loadDataDir, prepareStatements, genericPlans, modules } = workerData as {
  dataDir: string;
  /** A fresh cluster's snapshot for an in-memory database (fresh-memory-cluster.ts). */
  loadDataDir: Blob | undefined;
  prepareStatements: boolean;
  genericPlans: boolean;
  modules: PgliteModules;
};

const where = dataDir === ":memory:" ? { loadDataDir } : { dataDir };
const opened = await PGlite.create({ ...where, ...modules })
  .then(async (pglite) => {
    await pglite.exec(planSettingsStatement(genericPlans));
    return pglite;
  })
  .catch((error: unknown) => {
    port.postMessage({ kind: "failed", error: errorToFields(error) } satisfies PgliteOpening);
    port.close();
    return undefined;
  });

if (opened !== undefined) {
  const pglite = opened;
  const statements = prepareStatements ? new PreparingPglite(pglite) : pglite;
  let tail = Promise.resolve();
  port.on("message", (request: PgliteRequest) => {
    tail = tail.then(() => answer(pglite, statements, request));
  });
  port.postMessage({ kind: "ready" } satisfies PgliteOpening);
}

async function answer(pglite: PGlite, statements: PgliteQueryable, request: PgliteRequest): Promise<void> {
  try {
    if (request.kind === "close") {
      await pglite.close();
      port?.postMessage({ id: request.id, ok: true, rows: [], affectedRows: undefined } satisfies PgliteAnswer);
      port?.close();
      return;
    }
    if (request.kind === "snapshot") {
      const snapshot = await snapshotOf(pglite);
      port?.postMessage({
        id: request.id,
        ok: true,
        rows: [],
        affectedRows: undefined,
        snapshot,
      } satisfies PgliteAnswer);
      return;
    }
    const result = await statements.query(request.sql, request.params as unknown[]);
    // A committed write is answered only now, after PGlite has written it.
    port?.postMessage({
      id: request.id,
      ok: true,
      rows: result.rows,
      affectedRows: result.affectedRows,
    } satisfies PgliteAnswer);
  } catch (error) {
    // Also a row that cannot be cloned (DataCloneError): answered, not lost.
    port?.postMessage({ id: request.id, ok: false, error: errorToFields(error) } satisfies PgliteAnswer);
  }
}
