import { defineEventType } from "./event-type.ts";

// customer.erased: a customer and everything held for them were deleted; the ref alone is sent.

export const customerErased = defineEventType("customer.erased", "a customer is erased");

export interface CustomerErasedData {
  readonly customer_ref: string;
}

export function customerErasedData(customerId: string): CustomerErasedData {
  return { customer_ref: customerId };
}
