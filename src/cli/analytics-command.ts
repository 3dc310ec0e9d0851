import { toJson } from "@bufbuild/protobuf";
import {
  type ContactFigures,
  type GetContactFiguresResponse,
  GetContactFiguresResponseSchema,
} from "../../gen/callercontext/v1/caller_context_pb.ts";
import { MODES } from "../domain/tenant.ts";
import { parseChoice, requireOption } from "./arguments.ts";
import type { Command } from "./command.ts";
import { fields, table } from "./output.ts";

// `caller-context analytics`: an account's contact-centre figures (docs/analytics.md), from the admin API.

const percent = (rate: number | undefined) => (rate === undefined ? "-" : `${(rate * 100).toFixed(1)} %`);

/** The change of a rate against the previous period, in percentage points. */
function change(now: number | undefined, before: number | undefined): string {
  if (now === undefined || before === undefined) return "";
  const points = (now - before) * 100;
  return ` (${points >= 0 ? "+" : ""}${points.toFixed(1)} pts)`;
}

function formatFigures(report: GetContactFiguresResponse): string {
  const overall = report.overall as ContactFigures;
  const previous = report.previousOverall as ContactFigures;
  const summary = fields([
    ["period", `${report.period?.from} to ${report.period?.to} (UTC)`],
    ["previous period", `${report.previousPeriod?.from} to ${report.previousPeriod?.to}`],
    ["calls", `${overall.calls} (previous ${previous.calls})`],
    [
      "first-contact resolution",
      `${percent(overall.firstContactResolution)}${change(overall.firstContactResolution, previous.firstContactResolution)}` +
        ` of ${overall.issuesOpened} issues`,
    ],
    ["repeat-contact rate", `${percent(overall.repeatRate)}${change(overall.repeatRate, previous.repeatRate)}`],
    ["issues resolved", `${overall.issuesResolved}, mean attempts ${overall.meanAttempts?.toFixed(2) ?? "-"}`],
    ["attempts 1/2/3/4/5+", overall.attemptsDistribution.join(" / ")],
    [
      "open issues by age",
      `<1d ${report.openIssues?.under1Day ?? 0}, 1-7d ${report.openIssues?.from1To7Days ?? 0}, ` +
        `7-30d ${report.openIssues?.from7To30Days ?? 0}, >30d ${report.openIssues?.over30Days ?? 0}`,
    ],
    ["repeat window", `${report.repeatWindowDays} days`],
  ]);
  if (report.byIntent.length === 0) return summary;
  const intents = table([
    ["INTENT", "CALLS", "FCR", "PREVIOUS FCR", "REPEAT SHARE", "RESOLVED", "MEAN ATTEMPTS"],
    ...report.byIntent.map((i) => [
      i.intent,
      String(i.figures?.calls ?? 0),
      percent(i.figures?.firstContactResolution),
      percent(i.previous?.firstContactResolution),
      percent(i.figures?.repeatRate),
      String(i.figures?.issuesResolved ?? 0),
      i.figures?.meanAttempts?.toFixed(2) ?? "-",
    ]),
  ]);
  return `${summary}\n\n${intents}`;
}

export const analyticsCommand: Command = {
  name: "analytics",
  args: ["ACCOUNT_ID"],
  options: { from: { type: "string" }, to: { type: "string" }, mode: { type: "string" } },
  synopsis: `--from YYYY-MM-DD --to YYYY-MM-DD [--mode ${MODES.join("|")}]`,
  summary: "first-contact resolution and repeat contacts of UTC days, against the period before (mode: prod)",
  async run({ args, options, admin }) {
    const from = requireOption(options, "from");
    const to = requireOption(options, "to");
    const mode = options.mode === undefined ? "prod" : parseChoice(options.mode, "--mode", MODES);
    const { figures } = await admin().getAccountContactFigures({ accountId: args[0]!, mode, from, to });
    if (figures === undefined) throw new Error("the server answered without figures");
    return {
      // The REST contract's names, as GET /v1/analytics/contact-figures answers.
      json: toJson(GetContactFiguresResponseSchema, figures, {
        useProtoFieldName: true,
        alwaysEmitImplicit: true,
      }) as object,
      text: formatFigures(figures),
    };
  },
};
