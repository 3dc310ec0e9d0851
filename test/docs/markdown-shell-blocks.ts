import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One fenced `sh` block of a Markdown file, with the heading it sits under. */
export interface ShellBlock {
  /** The file, relative to the repository: `README.md`, `docs/operations.md`. */
  readonly file: string;
  /** The nearest heading above the block, without its `#`s. */
  readonly heading: string;
  /** The block's text, its indentation (a block inside a list item) removed. */
  readonly text: string;
}

/** The Markdown files whose commands a reader runs: README.md and every file in docs/. */
export function documentedFiles(repo: string): string[] {
  const docs = readdirSync(join(repo, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs];
}

export function shellBlocksOf(repo: string, file: string): ShellBlock[] {
  const lines = readFileSync(join(repo, file), "utf8").split("\n");
  const blocks: ShellBlock[] = [];
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^(\s*)```(\w*)\s*$/.exec(line);
    if (fence === null) {
      const title = /^#{1,6}\s+(.*)$/.exec(line);
      if (title) heading = title[1]!.trim();
      continue;
    }
    // Skip to the closing fence, whatever the language, so that a `#` comment inside is never a heading.
    const indent = fence[1]!.length;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!.slice(indent));
    if (["sh", "bash", "shell", "console"].includes(fence[2]!)) blocks.push({ file, heading, text: body.join("\n") });
  }
  return blocks;
}

/** A block's name in messages and in the table of runners: `file#heading`. */
export function blockName(block: Pick<ShellBlock, "file" | "heading">): string {
  return `${block.file}#${block.heading}`;
}
