import { Code } from "@connectrpc/connect";

// Connect codes by their protocol names ("invalid_argument"), as the Connect
// protocol writes them and as the access log and metrics report them.

export const OK = "ok";

const NAMES = new Map<number, string>([[0, OK]]);
for (const [key, value] of Object.entries(Code)) {
  if (typeof value === "number")
    NAMES.set(
      value,
      key.replace(/[A-Z]/g, (c, i) => (i === 0 ? "" : "_") + c.toLowerCase()),
    );
}

/** "ok" for 0, the snake_case name of any other code; the number itself for one that has no name. */
export function codeName(code: number): string {
  return NAMES.get(code) ?? String(code);
}
