import { PGlite } from "@electric-sql/pglite";
import { pgliteModules } from "./pglite-modules.ts";

// An in-memory embedded database starts as a fresh cluster, and making one
// (PGlite's initdb) is most of its opening: about 1.2 s of a 1.5 s start on a
// two-core machine, where loading the same cluster from a snapshot takes 0.3 s.
// A process that opens more than one (the test suite opens one per server) keeps
// a snapshot of a fresh cluster from its second opening on and starts the
// others from it; a process that opens one (`DATA_DIR=:memory: npm start`)
// holds nothing. The snapshot is uncompressed (about 40 MB, off the heap):
// gzip would hold 4.5 MB but add 0.2 s to every opening.

let opened = 0;
let snapshot: Promise<Blob> | undefined;

/** What the next in-memory database loads instead of running initdb; undefined for a process's first. */
export function freshMemoryCluster(): Promise<Blob | undefined> {
  opened += 1;
  if (opened < 2) return Promise.resolve(undefined);
  snapshot ??= (async () => {
    const pglite = await PGlite.create({ ...(await pgliteModules()) });
    try {
      return await pglite.dumpDataDir("none");
    } finally {
      await pglite.close();
    }
  })();
  // A snapshot that failed is not kept: the next opening tries again.
  snapshot.catch(() => {
    snapshot = undefined;
  });
  return snapshot;
}
