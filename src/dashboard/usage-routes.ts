import type { FastifyInstance } from "fastify";
import { listOwnedKeys } from "../accounts/owned-keys.ts";
import type { AppContext } from "../context.ts";
import { accountUsage } from "../usage/account-usage.ts";
import { keyUsageThisPeriod } from "../usage/key-usage.ts";
import { accountDepsOf } from "../use-case-deps.ts";
import { signedIn } from "./session-guard.ts";
import { usageChartSvg } from "./usage-chart.ts";

export function registerUsageRoutes(scope: FastifyInstance, app: AppContext): void {
  const keyDeps = { db: app.database.db, clock: app.clock, meter: app.meter };
  scope.get("/usage", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const usage = await accountUsage(accountDepsOf(app), app.meter, user.account_id);
    const refusedDays = usage.days.filter((d) => d.refusedQuota + d.refusedRate > 0).reverse();
    const totals = usage.days.reduce((t, d) => ({ test: t.test + d.test, prod: t.prod + d.prod }), {
      test: 0,
      prod: 0,
    });
    const billedByKey = await keyUsageThisPeriod(keyDeps, user.account_id);
    // Every live key, and an ended one only if it billed this period: the list stays about the keys in use.
    const perKey = (await listOwnedKeys(accountDepsOf(app), user.account_id))
      .map((key) => ({ ...key, billed: billedByKey.get(key.keyId) ?? 0 }))
      .filter((key) => key.status.state !== "revoked" || key.billed > 0)
      .sort((a, b) => b.billed - a.billed);
    return reply.view("usage.eta", {
      title: "Usage",
      tab: "usage",
      usage,
      totals,
      refusedDays,
      perKey,
      chart: usageChartSvg(usage.days) + usageChartSvg(usage.days, 380),
    });
  });
}
