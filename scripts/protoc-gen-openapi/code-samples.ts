import { existsSync, readFileSync } from "node:fs";

// The copy-paste examples of a route: docs/samples/<operationId>.sh (curl), .ts (@caller-context/client) and .py
// (the caller-context package), each run against a live service by test/docs/code-samples.test.ts and the Python
// client's tests. They go into the document twice: as `x-codeSamples`, which reference renderers such as Redoc
// show in a tab of their own, and in the description, which Swagger UI (the /docs page) renders as Markdown.

const SAMPLES = new URL("../../docs/samples/", import.meta.url);
const LANGUAGES = [
  { extension: "sh", lang: "Shell", label: "curl", fence: "sh" },
  { extension: "ts", lang: "TypeScript", label: "TypeScript", fence: "ts" },
  { extension: "py", lang: "Python", label: "Python", fence: "python" },
] as const;

export interface CodeSample {
  readonly lang: string;
  readonly label: string;
  readonly source: string;
}

export function codeSamplesOf(operationId: string): CodeSample[] {
  return LANGUAGES.flatMap(({ extension, lang, label }) => {
    const file = new URL(`${operationId}.${extension}`, SAMPLES);
    return existsSync(file) ? [{ lang, label, source: readFileSync(file, "utf8") }] : [];
  });
}

/** The samples as Markdown, for an operation's description. */
export function samplesMarkdown(samples: readonly CodeSample[]): string {
  return samples
    .map((sample) => {
      const fence = LANGUAGES.find((language) => language.lang === sample.lang)?.fence ?? "";
      return `**${sample.label}**\n\n\`\`\`${fence}\n${sample.source.trimEnd()}\n\`\`\``;
    })
    .join("\n\n");
}
