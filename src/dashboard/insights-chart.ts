import type { ContactFigures } from "../analytics/get-contact-figures.ts";
import { bar, dayLabel, gridLines, niceMax } from "./svg-bar-chart.ts";

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
  parts.push(...gridLines(y, max, PAD.left, WIDTH - PAD.right));
  const labelEvery = Math.max(1, Math.ceil(days.length / (WIDTH < 600 ? 5 : 10)));
  days.forEach((d, i) => {
    const x = PAD.left + i * slot + (slot - barW) / 2;
    const { calls, repeatCalls } = d.figures;
    const first = calls - repeatCalls;
    const label = `${d.day}: ${calls} calls, ${repeatCalls} repeat contacts`;
    parts.push(bar("first", x, y(first), barW, y(0) - y(first), label));
    parts.push(bar("repeat", x, y(calls), barW, y(first) - y(calls), label));
    if ((days.length - 1 - i) % labelEvery === 0) {
      parts.push(dayLabel(PAD.left + i * slot + slot / 2, HEIGHT, d.day));
    }
  });
  return `<svg class="chart ${WIDTH < 600 ? "narrow" : "wide"}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Calls per day and their repeat contacts">${parts.join("")}</svg>`;
}
