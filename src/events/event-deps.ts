import type { AccountDeps } from "../accounts/account-deps.ts";
import type { SecretBox } from "../secrets/secret-box.ts";

// What the endpoint use cases need: the account use cases' store and clock
// (to find the account), and how a host name is resolved (the system's DNS,
// or a fixed answer in tests of what a name resolving inward means).

export type ResolveHost = (host: string) => Promise<readonly string[]>;

export interface EventDeps extends Pick<AccountDeps, "db" | "clock" | "monthlyQuota"> {
  readonly resolveHost: ResolveHost;
  /** Seals an endpoint's signing secret before it is stored: the worker must read it back to sign. */
  readonly secrets: Pick<SecretBox, "seal">;
}
