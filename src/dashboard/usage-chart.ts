import type { UsageDay } from "../usage/account-usage.ts";

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
  for (const tick of [0, max / 2, max]) {
    parts.push(
      `<line class="grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(tick)}" y2="${y(tick)}"/>`,
      `<text class="axis" x="${PAD.left - 8}" y="${y(tick) + 4}" text-anchor="end">${tick.toLocaleString("en-US")}</text>`,
    );
  }
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
      parts.push(
        `<text class="axis" x="${PAD.left + i * slot + slot / 2}" y="${HEIGHT - 8}" text-anchor="middle">${d.day.slice(5)}</text>`,
      );
    }
  });
  return `<svg class="chart ${WIDTH < 600 ? "narrow" : "wide"}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Billed calls per day, last 30 days">${parts.join("")}</svg>`;
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
