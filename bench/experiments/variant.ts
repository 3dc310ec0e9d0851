// A variant of the server for an A/B: NAME=value settings and Node flags
// (words starting with --, given after `npm start`'s own, so a later V8 flag
// overrides an earlier one), e.g. "ADMISSION_CONTROL=off --max-semi-space-size=4".

export interface Variant {
  readonly env: Record<string, string>;
  readonly nodeFlags: string[];
}

export function parseVariant(text: string): Variant {
  const env: Record<string, string> = {};
  const nodeFlags: string[] = [];
  for (const pair of text.split(/\s+/).filter(Boolean)) {
    if (pair.startsWith("--")) {
      nodeFlags.push(pair);
      continue;
    }
    const at = pair.indexOf("=");
    if (at <= 0) throw new Error(`not NAME=value: ${pair}`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return { env, nodeFlags };
}
