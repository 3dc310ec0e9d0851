// Whose data a request may see: one account, in one data mode. Keys of kind
// "test" and "prod" of the same account see different customers.

export type Mode = "test" | "prod";

export interface Tenant {
  readonly accountId: string;
  readonly mode: Mode;
}
