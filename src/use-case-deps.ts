import type { AccountDeps } from "./accounts/account-deps.ts";
import type { CallDeps } from "./calls/call-write.ts";
import type { AppContext } from "./context.ts";
import type { DashboardAuthDeps } from "./dashboard-auth/dashboard-auth-deps.ts";
import { systemResolveHost } from "./events/create-endpoint.ts";
import type { EventDeps } from "./events/event-deps.ts";
import type { WebhookDeps } from "./integrations/webhook-deps.ts";

// What each family of use cases is given, taken from the app's context here,
// so a use case sees only what it uses and never the context itself.

export function callDepsOf(app: AppContext): CallDeps {
  return {
    db: app.database.db,
    clock: app.clock,
    defaultRegion: app.config.defaultRegion,
    sensitiveData: app.config.sensitiveData,
    inflightAbort: app.database.inflightAbort,
    forgetMe: app.forgetMe,
    endEventListeners: app.endEventListeners,
  };
}

export function webhookDepsOf(app: AppContext): WebhookDeps {
  return { ...callDepsOf(app), startBudgetMs: app.config.budgetMs.start, log: app.log };
}

/** The admin API, the dashboard and the first start each pass the same account dependencies. */
export function accountDepsOf(app: AppContext): AccountDeps {
  const keys = {
    forgetAll() {
      app.keys.forgetAll();
      app.webhooks.forgetAll();
    },
  };
  return { db: app.database.db, clock: app.clock, keys, monthlyQuota: app.config.monthlyQuota, secrets: app.secrets };
}

/** The dashboard's sign-up, sign-in, team and password pages, and the admin API's invitations. */
export function dashboardAuthDepsOf(app: AppContext): DashboardAuthDeps {
  return { ...accountDepsOf(app), dashboard: app.config.dashboard };
}

/** The admin API and the dashboard manage event endpoints with the same dependencies. */
export function eventDepsOf(app: AppContext): EventDeps {
  return {
    db: app.database.db,
    clock: app.clock,
    monthlyQuota: app.config.monthlyQuota,
    resolveHost: systemResolveHost,
    secrets: app.secrets,
  };
}
