// Plain-text tables. Columns are right-aligned unless `align` says "l" for them
// (by default the first column is left-aligned).

export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  align = `l${"r".repeat(Math.max(0, headers.length - 1))}`,
): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (align[column] === "l" ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join("  ")
      .trimEnd();
  const rule = widths.map((width) => "-".repeat(width)).join("  ");
  return [line(headers), rule, ...rows.map(line)].join("\n");
}

/** 1234567 → "1 234 567". */
export function grouped(value: number): string {
  return Math.round(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, " ");
}

export function fixed(value: number | undefined, digits = 2): string {
  return value === undefined || Number.isNaN(value) ? "-" : value.toFixed(digits);
}

/** The median of the finite values; NaN when there are none (printed "-" by fixed). */
export function median(values: readonly (number | undefined)[]): number {
  const sorted = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((x, y) => x - y);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
