import type { PGlite } from "@electric-sql/pglite";

// A copy of the embedded database's data directory that opens as it was: a
// checkpoint first, so the copy needs no recovery, then the directory's files
// as a tar. PGlite runs one statement at a time, and the caller holds the only
// connection (Database.snapshot), so no write lands halfway through the copy.
// Uncompressed: the copy is the only time the calls wait, and gzip happens
// after they have started again.

export async function snapshotOf(pglite: PGlite): Promise<Blob> {
  await pglite.exec("checkpoint");
  return pglite.dumpDataDir("none");
}
