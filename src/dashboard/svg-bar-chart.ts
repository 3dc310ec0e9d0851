// The pieces the dashboard's server-drawn bar charts share (usage-chart.ts, insights-chart.ts): a bar with its
// label as a tooltip, a round top for the value axis, its grid lines, and a day under the x axis.

export function bar(kind: string, x: number, y: number, w: number, h: number, label: string): string {
  if (h <= 0) return "";
  return `<rect class="${kind}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${w.toFixed(1)}" height="${h.toFixed(1)}" rx="1.5"><title>${label}</title></rect>`;
}

/** A round top for the axis: 1, 2, 5 × 10^n. */
export function niceMax(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return Math.max(2, step * power);
  return value;
}

/** Grid lines at 0, half and the top of the axis, each with its value at the left. */
export function gridLines(y: (value: number) => number, max: number, left: number, right: number): string[] {
  return [0, max / 2, max].flatMap((tick) => [
    `<line class="grid" x1="${left}" x2="${right}" y1="${y(tick)}" y2="${y(tick)}"/>`,
    `<text class="axis" x="${left - 8}" y="${y(tick) + 4}" text-anchor="end">${tick.toLocaleString("en-US")}</text>`,
  ]);
}

/** A day (MM-DD) centred under its slot. */
export function dayLabel(centre: number, height: number, day: string): string {
  return `<text class="axis" x="${centre}" y="${height - 8}" text-anchor="middle">${day.slice(5)}</text>`;
}
