import type { UsageDay } from "../usage/account-usage.ts";
import { bar, dayLabel, gridLines, niceMax } from "./svg-bar-chart.ts";

// The usage chart as SVG, drawn on the server: per day a test bar and a
// production bar side by side, and a red mark above days with refused calls.
// Only numbers and dates we produce go into it.

const HEIGHT = 240;
const PAD = { top: 24, right: 12, bottom: 28, left: 44 };

/** Drawn at 900 units wide for desktops and 380 for phones, where the page shows the other one. */
export function usageChartSvg(days: readonly UsageDay[], WIDTH = 900): string {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const max = niceMax(Math.max(1, ...days.map((d) => Math.max(d.test, d.prod))));
  const slot = plotW / days.length;
  const barW = Math.max(2, slot * 0.36);
  const y = (value: number) => PAD.top + plotH - (value / max) * plotH;
  const parts: string[] = [];
  parts.push(...gridLines(y, max, PAD.left, WIDTH - PAD.right));
  days.forEach((d, i) => {
    const x = PAD.left + i * slot + (slot - 2 * barW) / 2;
    const label = `${d.day}: ${d.test} test, ${d.prod} production`;
    parts.push(bar("test", x, y(d.test), barW, y(0) - y(d.test), label));
    parts.push(bar("prod", x + barW, y(d.prod), barW, y(0) - y(d.prod), label));
    if (d.refusedQuota + d.refusedRate > 0) {
      const cx = PAD.left + i * slot + slot / 2;
      parts.push(
        `<circle class="refused" cx="${cx}" cy="${PAD.top - 10}" r="4"><title>${d.day}: ${d.refusedQuota} refused for quota (402), ${d.refusedRate} for rate (429)</title></circle>`,
      );
    }
    const every = WIDTH < 600 ? 7 : 5;
    if ((days.length - 1 - i) % every === 0) {
      parts.push(dayLabel(PAD.left + i * slot + slot / 2, HEIGHT, d.day));
    }
  });
  return `<svg class="chart ${WIDTH < 600 ? "narrow" : "wide"}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Billed calls per day, last 30 days">${parts.join("")}</svg>`;
}
