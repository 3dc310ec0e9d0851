import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type {
  ContactFiguresSchema,
  GetContactFiguresResponseSchema,
} from "../../gen/callercontext/v1/caller_context_pb.ts";
import type { ContactFigures, ContactFiguresReport } from "../analytics/get-contact-figures.ts";

// The contact figures ⇄ proto.

function figuresToProto(figures: ContactFigures): MessageInitShape<typeof ContactFiguresSchema> {
  return {
    calls: figures.calls,
    repeatCalls: figures.repeatCalls,
    repeatRate: figures.repeatRate,
    issuesOpened: figures.issuesOpened,
    resolvedFirstContact: figures.resolvedFirstContact,
    firstContactResolution: figures.firstContactResolution,
    issuesResolved: figures.issuesResolved,
    meanAttempts: figures.meanAttempts,
    attemptsDistribution: [...figures.attemptsDistribution],
  };
}

export function contactFiguresToResponse(
  report: ContactFiguresReport,
): MessageInitShape<typeof GetContactFiguresResponseSchema> {
  const [under1, from1To7, from7To30, over30] = report.openIssues;
  return {
    period: report.period,
    previousPeriod: report.previousPeriod,
    overall: figuresToProto(report.overall),
    previousOverall: figuresToProto(report.previousOverall),
    byIntent: report.byIntent.map((i) => ({
      intent: i.intent,
      figures: figuresToProto(i.figures),
      previous: figuresToProto(i.previous),
    })),
    byDay: report.byDay.map((d) => ({ day: d.day, figures: figuresToProto(d.figures) })),
    openIssues: { under1Day: under1, from1To7Days: from1To7, from7To30Days: from7To30, over30Days: over30 },
    repeatWindowDays: report.repeatWindowDays,
    countedThrough: report.countedThrough && timestampFromDate(report.countedThrough),
  };
}
