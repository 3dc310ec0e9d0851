import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "kysely";
import { expect } from "vitest";
import { post } from "./rest-client.ts";
import type { TestServer } from "./test-server.ts";

// What the erasure suites look for on disk: a caller whose number, external id and variable are each unique to
// them, and the files of the tables that could hold those texts.

/** Letters only: a run of digits in a random marker could pass for a card number and be refused. */
export function marker(): string {
  return randomBytes(8)
    .toString("hex")
    .replace(/[0-9]/g, (digit) => "ghijklmnop"[Number(digit)] ?? "g");
}

/** A caller with a number, an external id and a variable, each unique to it; returns its ref and the three. */
export async function callerWithTexts(server: TestServer, apiKey: string, n: number) {
  const number = `+1415555${String(1000 + n).padStart(4, "0")}`;
  const crm = `crm-${marker()}`;
  const value = `var-${marker()}`;
  const callId = `erase-${marker()}`;
  const started = await post(server.url, "/v1/calls/start", apiKey, {
    call_id: callId,
    identity_hints: { ani: number, external_ids: { crm_id: crm } },
  });
  expect(started.status).toBe(200);
  const ended = await post(server.url, "/v1/calls/end", apiKey, {
    call_id: callId,
    customer_ref: started.body.customer_ref,
    variables: { note: value },
  });
  expect(ended.status).toBe(200);
  return { ref: started.body.customer_ref as string, texts: [number, crm, value] };
}

/**
 * The files that hold the customer tables' rows (not the WAL): every file under the embedded data directory
 * `dataDir`, or on PostgreSQL the files of the tables and indexes of the server's database.
 */
export async function tableFiles(server: TestServer, dataDir?: string): Promise<string[]> {
  if (dataDir !== undefined) {
    const entries = await readdir(join(dataDir, "base"), { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  }
  const { rows } = await sql<{ dir: string; path: string }>`
    select current_setting('data_directory') as dir, pg_relation_filepath(c.oid) as path
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'i', 't') and pg_relation_filepath(c.oid) is not null
  `.execute(server.context.database.db);
  return rows.map((row) => join(row.dir, row.path));
}

export async function filesHolding(files: string[], text: string): Promise<string[]> {
  const found: string[] = [];
  for (const file of files) {
    // Segments beyond the first (relation.1, …) and files a vacuum truncated away are read when there.
    const content = await readFile(file).catch(() => undefined);
    if (content?.includes(text)) found.push(file);
  }
  return found;
}
