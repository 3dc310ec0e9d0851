import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { SourceVersion } from "./results.ts";

// Which code the figures belong to: the commit, and whether the working tree
// had changes outside bench/ (read-only git commands).

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The commit of `root` (this checkout by default; the other side's in an A/B). */
export function sourceVersion(root = ROOT): SourceVersion | undefined {
  try {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
    const changed = git("status", "--porcelain", "--", ".", ":(exclude)bench")
      .split("\n")
      .filter((line) => line !== "");
    return { commit: git("rev-parse", "--short", "HEAD"), changedFiles: changed.length };
  } catch {
    return undefined;
  }
}
