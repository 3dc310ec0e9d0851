import { DomainError } from "../domain/domain-error.ts";
import { isCustomerGone } from "../store/engine/database-errors.ts";

/** Thrown by a use case whose write found its chosen customer gone without the database refusing it. */
export class CustomerGoneError extends Error {
  constructor() {
    super("the chosen customer is gone");
    this.name = "CustomerGoneError";
  }
}

/**
 * Runs a call's work again, once, when its write found the customer it had
 * chosen gone: erased or merged away between the look and the write (the
 * write was undone whole). The second look sees the erasure or follows the
 * alias to the survivor; a customer that changes again meanwhile is a 503.
 */
export async function retryWhenCustomerGone<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!gone(error)) throw error;
  }
  try {
    return await work();
  } catch (error) {
    if (!gone(error)) throw error;
    throw new DomainError("unavailable", "The customer changed while the call was saved; retry the request");
  }
}

function gone(error: unknown): boolean {
  return error instanceof CustomerGoneError || isCustomerGone(error);
}
