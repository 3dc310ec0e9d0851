import type { AccountDeps } from "../accounts/account-deps.ts";
import type { Config } from "../config.ts";

// What the dashboard's people use cases (sign-up, sign-in, invitations, team,
// password reset) need: the account dependencies, since a sign-up makes an
// account and a verified address its first key, and the dashboard's settings.

export interface DashboardAuthDeps extends AccountDeps {
  readonly dashboard: Config["dashboard"];
}
