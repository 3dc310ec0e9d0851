import type { ContactFigures } from "../analytics/get-contact-figures.ts";

// The Insights chart as SVG, drawn on the server: per day a bar of the calls, its repeat contacts stacked on
// top in another colour. Only numbers and days we produce go into it.

const HEIGHT = 240;
const PAD = { top: 16, right: 12, bottom: 28, left: 44 };

/** Drawn at 900 units wide for desktops and 380 for phones, where the page shows the other one. */
export function insightsChartSvg(days: readonly { day: string; figures: ContactFigures }[], WIDTH = 900): string {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const max = niceMax(Math.max(1, ...days.map((d) => d.figures.calls)));
  const slot = plotW / Math.max(1, days.length);
  const barW = Math.max(1.5, slot * 0.7);
  const y = (value: number) => PAD.top + plotH - (value / max) * plotH;
  const parts: string[] = [];
  for (const tick of [0, max / 2, max]) {
    parts.push(
      `<line class="grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(tick)}" y2="${y(tick)}"/>`,
      `<text class="axis" x="${PAD.left - 8}" y="${y(tick) + 4}" text-anchor="end">${tick.toLocaleString("en-US")}</text>`,
    );
  }
  const labelEvery = Math.max(1, Math.ceil(days.length / (WIDTH < 600 ? 5 : 10)));
  days.forEach((d, i) => {
    const x = PAD.left + i * slot + (slot - barW) / 2;
    const { calls, repeatCalls } = d.figures;
    const first = calls - repeatCalls;
    const label = `${d.day}: ${calls} calls, ${repeatCalls} repeat contacts`;
    parts.push(bar("first", x, y(first), barW, y(0) - y(first), label));
    parts.push(bar("repeat", x, y(calls), barW, y(first) - y(calls), label));
    if ((days.length - 1 - i) % labelEvery === 0) {
      parts.push(
        `<text class="axis" x="${PAD.left + i * slot + slot / 2}" y="${HEIGHT - 8}" text-anchor="middle">${d.day.slice(5)}</text>`,
      );
    }
  });
  return `<svg class="chart ${WIDTH < 600 ? "narrow" : "wide"}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Calls per day and their repeat contacts">${parts.join("")}</svg>`;
}

function bar(kind: string, x: number, y: number, w: number, h: number, label: string): string {
  if (h <= 0) return "";
  return `<rect class="${kind}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${w.toFixed(1)}" height="${h.toFixed(1)}" rx="1.5"><title>${label}</title></rect>`;
}

/** A round top for the axis: 1, 2, 5 × 10^n. */
function niceMax(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return Math.max(2, step * power);
  return value;
}
