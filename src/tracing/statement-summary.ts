// What OpenTelemetry's database conventions name a statement by: its
// operation and the table it acts on ("insert calls", "select customers"),
// read from the SQL text. A statement that starts with CTEs is named by its
// main statement; when that only selects the CTEs' results (a start's or an
// end's one statement), by the first CTE that writes, the change it exists for.

export interface StatementSummary {
  /** "select", "insert", "update", "delete", … lower case. */
  readonly operation: string;
  /** The table the operation acts on, when the text names one. */
  readonly table?: string;
}

interface Word {
  readonly text: string;
  readonly depth: number;
}

const WRITES = new Set(["insert", "update", "delete", "merge"]);
const TARGET_AFTER: Readonly<Record<string, string>> = {
  insert: "into",
  delete: "from",
  merge: "into",
  select: "from",
};

export function summarizeStatement(sql: string): StatementSummary {
  const words = wordsOf(sql);
  const first = words[0]?.text ?? "";
  if (first !== "with") return summaryAt(words, 0);
  const main = words.findIndex((word) => word.depth === 0 && (word.text === "select" || WRITES.has(word.text)));
  if (main === -1) return { operation: "with" };
  const summary = summaryAt(words, main);
  if (summary.operation !== "select" || summary.table !== undefined) return summary;
  const write = words.findIndex((word) => word.depth === 1 && WRITES.has(word.text));
  return write === -1 ? summary : summaryAt(words, write);
}

/** The operation at `at` and the table it names, read at the operation's own depth. */
function summaryAt(words: readonly Word[], at: number): StatementSummary {
  const { text: operation, depth } = words[at]!;
  const marker = TARGET_AFTER[operation];
  let position = at + 1;
  if (marker !== undefined) {
    // The marker must be at the operation's depth ("from" inside a subquery is not the statement's).
    while (position < words.length && !(words[position]!.depth === depth && words[position]!.text === marker)) {
      if (words[position]!.depth < depth) return { operation };
      position++;
    }
    position++;
  }
  const table = words[position];
  return table !== undefined && table.depth === depth && /^[a-z_][a-z0-9_.]*$/.test(table.text)
    ? { operation, table: table.text }
    : { operation };
}

/** The words of the text, lower case, each with its depth in parentheses; string literals skipped. */
function wordsOf(sql: string): Word[] {
  const words: Word[] = [];
  let depth = 0;
  for (const match of sql.toLowerCase().matchAll(/\(|\)|'(?:[^']|'')*'|"[^"]*"|[a-z_][a-z0-9_.]*/g)) {
    const token = match[0];
    if (token === "(") {
      // Kept as a word: a table position holding a subquery names no table.
      words.push({ text: "(", depth });
      depth++;
    } else if (token === ")") depth = Math.max(0, depth - 1);
    else if (!token.startsWith("'")) words.push({ text: token.replaceAll('"', ""), depth });
  }
  return words;
}
