import { isCustomerGone } from "../store/database-errors.ts";

/**
 * Runs a call's work again, once, when its write found the customer it had
 * chosen gone: erased or merged away between the look and the write (the
 * write was undone whole). The second look sees the erasure or follows the
 * alias to the survivor.
 */
export async function retryWhenCustomerGone<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isCustomerGone(error)) throw error;
    return work();
  }
}
