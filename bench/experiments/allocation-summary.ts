import { readFileSync } from "node:fs";

// `node bench/experiments/allocation-summary.ts <file.heapprofile>`: the bytes a sampling
// heap profile (allocation-sampling.ts) saw allocated, by package or source
// folder and by allocating function, as shares of the whole.

interface AllocationNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly AllocationNode[];
}

const TOP = 20;

function moduleOf(url: string): string {
  const inPackage = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1];
  const inSource = /\/(src|bench)\/([^/]+)/.exec(url);
  if (inSource) return `${inSource[1]}/${inSource[2]}`;
  return url === "" ? "(native)" : url;
}

const file = process.argv[2];
if (file === undefined) throw new Error("usage: node bench/experiments/allocation-summary.ts <file.heapprofile>");
const profile = JSON.parse(readFileSync(file, "utf8")) as { head: AllocationNode };
const byModule = new Map<string, number>();
const byFunction = new Map<string, number>();
let total = 0;
const pending = [profile.head];
for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = `${functionName || "(anonymous)"} ${url.split("/").slice(-2).join("/")}:${lineNumber + 1}`;
  total += node.selfSize;
  byModule.set(moduleOf(url), (byModule.get(moduleOf(url)) ?? 0) + node.selfSize);
  byFunction.set(where, (byFunction.get(where) ?? 0) + node.selfSize);
  pending.push(...node.children);
}
const lines = (counts: Map<string, number>) =>
  [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .map(
      ([name, bytes]) =>
        `${((bytes / total) * 100).toFixed(1).padStart(6)} %  ${(bytes / 1e6).toFixed(0).padStart(6)} MB  ${name}`,
    )
    .join("\n");
process.stdout.write(
  `${(total / 1e6).toFixed(0)} MB sampled\n\nBy package or source folder\n${lines(byModule)}\n\nBy allocating function\n${lines(byFunction)}\n`,
);
