// Whose data a request may see: one account, in one data mode. Keys of kind
// "test" and "prod" of the same account see different customers.

export const MODES = ["test", "prod"] as const;
export type Mode = (typeof MODES)[number];

export interface Tenant {
  readonly accountId: string;
  readonly mode: Mode;
}
