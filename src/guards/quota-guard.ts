import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { QuotaExhaustedSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import type { Clock } from "../domain/clock.ts";
import { creditsLeft, type MonthlyAllowance, takeCredit } from "../store/account-repository.ts";
import type { Charge } from "../store/charge.ts";
import type { Db } from "../store/database.ts";
import { chargeKey, principalKey } from "./context-values.ts";

export interface QuotaGuardOptions {
  readonly db: Db;
  readonly clock: Clock;
  readonly monthlyAllowance: MonthlyAllowance;
}

/**
 * The monthly quota. An account with no credit left is refused before the
 * handler runs. Otherwise the handler's transaction takes the credit as its
 * last statement (the charge in the context), so only calls that commit are
 * billed and concurrent calls never take more credits than there are: a call
 * that finds the last one gone rolls back and is refused too.
 */
export function quotaGuard(options: QuotaGuardOptions): Interceptor {
  const { db, clock, monthlyAllowance } = options;
  return (next) => async (req) => {
    const principal = req.contextValues.get(principalKey);
    if (principal === undefined) return next(req);
    const accountId = principal.tenant.accountId;
    const exhausted = () =>
      new ConnectError("Monthly quota exhausted", Code.ResourceExhausted, { "x-quota-remaining": "0" }, [
        {
          desc: QuotaExhaustedSchema,
          value: create(QuotaExhaustedSchema, { quotaRemaining: 0, billingAccountId: principal.billingAccountId }),
        },
      ]);

    const before = await creditsLeft(db, accountId, clock.now(), monthlyAllowance);
    if (before <= 0) throw exhausted();

    let after: number | undefined;
    let refused = false;
    const charge: Charge = async (trx) => {
      after = await takeCredit(trx, accountId, clock.now(), monthlyAllowance);
      if (after === undefined) {
        refused = true;
        throw exhausted();
      }
    };
    req.contextValues.set(chargeKey, charge);
    try {
      const res = await next(req);
      res.header.set("x-quota-remaining", String(after ?? before));
      return res;
    } catch (error) {
      if (refused) throw exhausted();
      if (error instanceof ConnectError) error.metadata.set("x-quota-remaining", String(before));
      throw error;
    }
  };
}
