import type { ContactFigures, ContactFiguresReport } from "./get-contact-figures.ts";

// The contact figures as CSV: one row overall, one per intent, one per day; each with the previous period's
// figures beside it (empty for the days, which pair with nothing). Rates as decimals with 4 places.

const FIGURE_COLUMNS = [
  "calls",
  "repeat_calls",
  "repeat_rate",
  "issues_opened",
  "resolved_first_contact",
  "first_contact_resolution",
  "issues_resolved",
  "mean_attempts",
  "resolved_after_1",
  "resolved_after_2",
  "resolved_after_3",
  "resolved_after_4",
  "resolved_after_5_or_more",
];

const HEADER = ["row", "name", ...FIGURE_COLUMNS, ...FIGURE_COLUMNS.map((c) => `previous_${c}`)];

function cells(figures: ContactFigures | undefined): string[] {
  if (figures === undefined) return FIGURE_COLUMNS.map(() => "");
  const rate = (n: number | undefined) => (n === undefined ? "" : n.toFixed(4));
  return [
    String(figures.calls),
    String(figures.repeatCalls),
    rate(figures.repeatRate),
    String(figures.issuesOpened),
    String(figures.resolvedFirstContact),
    rate(figures.firstContactResolution),
    String(figures.issuesResolved),
    rate(figures.meanAttempts),
    ...figures.attemptsDistribution.map(String),
  ];
}

/** A field as CSV writes it: quoted when it holds a comma, a quote or a line break; a leading formula sign defused. */
function field(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function contactFiguresCsv(report: ContactFiguresReport): string {
  const rows = [
    HEADER,
    [
      "overall",
      `${report.period.from}..${report.period.to}`,
      ...cells(report.overall),
      ...cells(report.previousOverall),
    ],
    ...report.byIntent.map((i) => ["intent", i.intent, ...cells(i.figures), ...cells(i.previous)]),
    ...report.byDay.map((d) => ["day", d.day, ...cells(d.figures), ...cells(undefined)]),
  ];
  return `${rows.map((row) => row.map(field).join(",")).join("\r\n")}\r\n`;
}
