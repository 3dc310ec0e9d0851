import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { ProfileSummary } from "./results.ts";

// Where the server's CPU time went, from the .cpuprofile files V8 writes with
// --cpu-prof: self time per function and per package (or source file),
// as shares of the busy time (idle excluded).

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export async function summarizeProfiles(files: readonly string[], top = 15): Promise<ProfileSummary> {
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  let idleUs = 0;
  let busyUs = 0;
  for (const file of files) {
    const profile = JSON.parse(await readFile(file, "utf8")) as CpuProfile;
    const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
    profile.samples.forEach((id, index) => {
      const frame = frames.get(id);
      const us = profile.timeDeltas[index] ?? 0;
      if (frame === undefined || us <= 0) return;
      if (frame.functionName === "(idle)") {
        idleUs += us;
        return;
      }
      busyUs += us;
      const location = shortLocation(frame.url);
      const name = `${frame.functionName || "(anonymous)"}${location ? ` ${location}:${frame.lineNumber + 1}` : ""}`;
      add(byFunction, name, us);
      add(byModule, moduleOf(frame.functionName, frame.url), us);
    });
  }
  const entries = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfMs: us / 1000, percent: busyUs > 0 ? (us / busyUs) * 100 : 0 }));
  return {
    files,
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    topFunctions: entries(byFunction),
    topModules: entries(byModule),
  };
}

function add(map: Map<string, number>, key: string, us: number): void {
  map.set(key, (map.get(key) ?? 0) + us);
}

function shortLocation(url: string): string {
  if (url === "") return "";
  const path = url.startsWith("file://") ? fileURLToPath(url) : url;
  const inModules = path.lastIndexOf("/node_modules/");
  if (inModules >= 0) return path.slice(inModules + "/node_modules/".length);
  return path.startsWith(ROOT) ? path.slice(ROOT.length) : path;
}

/** A package name, a source file of ours, a Node built-in, or V8's own ("(garbage collector)"). */
function moduleOf(functionName: string, url: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  if (url.startsWith("node:"))
    return `node:${
      url
        .slice(5)
        .replace(/^internal\//, "")
        .split("/")[0]
    }`;
  const location = shortLocation(url);
  if (url.includes("/node_modules/")) {
    const parts = location.split("/");
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  return location;
}
