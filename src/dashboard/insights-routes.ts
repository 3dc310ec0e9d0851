import type { FastifyInstance } from "fastify";
import { contactFiguresCsv } from "../analytics/contact-figures-csv.ts";
import { type ContactFigures, getContactFigures } from "../analytics/get-contact-figures.ts";
import type { AppContext } from "../context.ts";
import { DAY_MS } from "../domain/limits.ts";
import type { Mode } from "../domain/tenant.ts";
import { field } from "./form-fields.ts";
import { insightsChartSvg } from "./insights-chart.ts";
import { signedIn } from "./session-guard.ts";

// Insights: first-contact resolution and repeat contacts of the last 7, 30 or 90 UTC days, against the days
// before (docs/analytics.md). Sorting the intents is a link: the page works with JavaScript off.

const PERIODS = [7, 30, 90] as const;
const SORTS = {
  intent: (f: IntentRow) => f.intent,
  calls: (f: IntentRow) => f.figures.calls,
  fcr: (f: IntentRow) => f.figures.firstContactResolution ?? -1,
  previous: (f: IntentRow) => f.previous.firstContactResolution ?? -1,
  repeat: (f: IntentRow) => f.figures.repeatRate ?? -1,
  resolved: (f: IntentRow) => f.figures.issuesResolved,
  attempts: (f: IntentRow) => f.figures.meanAttempts ?? -1,
} as const;
type SortKey = keyof typeof SORTS;
interface IntentRow {
  readonly intent: string;
  readonly figures: ContactFigures;
  readonly previous: ContactFigures;
}

interface InsightsQuery {
  readonly mode: Mode;
  readonly days: number;
  readonly sort: SortKey;
  readonly dir: "asc" | "desc";
}

function queryOf(source: unknown): InsightsQuery {
  const days = Number(field(source, "days"));
  const sort = field(source, "sort");
  return {
    mode: field(source, "mode") === "prod" ? "prod" : "test",
    days: (PERIODS as readonly number[]).includes(days) ? days : 30,
    sort: Object.hasOwn(SORTS, sort) ? (sort as SortKey) : "calls",
    dir: field(source, "dir") === "asc" ? "asc" : "desc",
  };
}

/** The last `days` UTC days, today included. */
function lastDays(now: Date, days: number): { from: string; to: string } {
  const to = now.toISOString().slice(0, 10);
  const from = new Date(Date.parse(`${to}T00:00:00Z`) - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  return { from, to };
}

function sorted(rows: readonly IntentRow[], sort: SortKey, dir: "asc" | "desc"): IntentRow[] {
  const key = SORTS[sort];
  const sign = dir === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    const order = typeof x === "string" ? x.localeCompare(String(y)) : x - (y as number);
    return order * sign || a.intent.localeCompare(b.intent);
  });
}

export function registerInsightsRoutes(scope: FastifyInstance, app: AppContext): void {
  const deps = { db: app.database.db };
  const figuresFor = async (accountId: string, query: InsightsQuery) =>
    getContactFigures(deps, { accountId, mode: query.mode }, lastDays(app.clock.now(), query.days), app.clock.now());

  scope.get("/insights", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const query = queryOf(request.query);
    const report = await figuresFor(user.account_id, query);
    const link = (changes: Partial<InsightsQuery>) => {
      const q = { ...query, ...changes };
      return `/dashboard/insights?mode=${q.mode}&days=${q.days}&sort=${q.sort}&dir=${q.dir}`;
    };
    // A header's link sorts by it, the other way round when it already does.
    const sortLink = (sort: SortKey) =>
      link({ sort, dir: query.sort === sort && query.dir === "desc" ? "asc" : "desc" });
    return reply.view("insights.eta", {
      title: "Insights",
      tab: "insights",
      query,
      periods: PERIODS,
      report,
      intents: sorted(report.byIntent, query.sort, query.dir),
      link,
      sortLink,
      csvLink: `/dashboard/insights.csv?mode=${query.mode}&days=${query.days}`,
      chart: insightsChartSvg(report.byDay) + insightsChartSvg(report.byDay, 380),
    });
  });

  scope.get("/insights.csv", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const query = queryOf(request.query);
    const report = await figuresFor(user.account_id, query);
    const name = `contact-figures-${query.mode}-${report.period.from}-${report.period.to}.csv`;
    return reply
      .type("text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="${name}"`)
      .send(contactFiguresCsv(report));
  });
}
