import { mkdir, writeFile } from "node:fs/promises";

// Every figure of a run (a full run's BenchResults, or an A/B's), with the
// options and the machine, as one JSON file in bench/results/, named by the
// run's start time.

export async function writeResults(
  dir: string,
  startedAt: Date,
  results: object,
  derived: Record<string, unknown>,
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = `${dir}${startedAt.toISOString().replace(/:/g, "-")}.json`;
  await writeFile(file, `${JSON.stringify({ ...results, ...derived }, null, 2)}\n`);
  return file;
}
