import { defineEventType } from "./event-type.ts";

// customer.merged: two customer records became one; `merged_ref` is gone, `customer_ref` holds what it had.

export const customerMerged = defineEventType("customer.merged", "two customer records are merged");

export interface CustomerMergedData {
  readonly customer_ref: string;
  readonly merged_ref: string;
}

export function customerMergedData(survivorId: string, mergedId: string): CustomerMergedData {
  return { customer_ref: survivorId, merged_ref: mergedId };
}
