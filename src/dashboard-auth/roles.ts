import type { UserRow } from "../store/schema.ts";

// Two roles. An owner runs the account: people, invitations, and every action
// that cannot be undone or that reaches production callers. A member works
// with it: keys (test keys, and production keys they may create), customers to
// read and unlink, integrations and test event endpoints to create. What
// follows needs the owner.

export type DestructiveAction =
  | "revoke_production_key"
  | "roll_production_key"
  | "erase_customer"
  | "merge_customers"
  | "delete_integration"
  | "create_production_endpoint"
  | "roll_production_endpoint"
  | "delete_production_endpoint"
  | "manage_members";

export function mayPerform(user: UserRow, _action: DestructiveAction): boolean {
  return user.role === "owner";
}

/** Production keys and integrations wait until the person has confirmed their address. */
export function mayUseProduction(user: UserRow): boolean {
  return user.email_verified_at !== null;
}
