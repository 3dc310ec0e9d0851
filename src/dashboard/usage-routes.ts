import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { accountUsage } from "../usage/account-usage.ts";
import { accountDepsOf } from "../use-case-deps.ts";
import { signedIn } from "./session-guard.ts";
import { usageChartSvg } from "./usage-chart.ts";

export function registerUsageRoutes(scope: FastifyInstance, app: AppContext): void {
  scope.get("/usage", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const usage = await accountUsage(accountDepsOf(app), app.meter, user.account_id);
    const refusedDays = usage.days.filter((d) => d.refusedQuota + d.refusedRate > 0).reverse();
    const totals = usage.days.reduce((t, d) => ({ test: t.test + d.test, prod: t.prod + d.prod }), {
      test: 0,
      prod: 0,
    });
    return reply.view("usage.eta", {
      title: "Usage",
      tab: "usage",
      usage,
      totals,
      refusedDays,
      chart: usageChartSvg(usage.days) + usageChartSvg(usage.days, 380),
    });
  });
}
