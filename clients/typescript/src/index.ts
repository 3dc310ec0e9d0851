export type { CallOptions } from "./call-runner.ts";
export {
  type CallerContextClient,
  type CallerContextClientOptions,
  type ContactPeriodInput,
  createCallerContextClient,
  type EndCallInput,
  type EndCallOptions,
  type IdentifyCallInput,
  type StartCallInput,
} from "./client.ts";
export type { CustomerRecords, Identifier } from "./customer-records.ts";
export {
  AuthenticationError,
  CallerContextError,
  type CallerContextErrorCode,
  ConflictError,
  DeadlineExceededError,
  IdempotencyKeyMismatchError,
  NotFoundError,
  QuotaExhaustedError,
  RateLimitedError,
  type RateLimitHint,
  UnavailableError,
  ValidationError,
  type ValidationIssue,
} from "./errors.ts";
export {
  type EndCallResponse,
  type GetUsageResponse,
  type IdentifyCallResponse,
  type Identity,
  IdentityLevel,
  IntentStatus,
  LineType,
  type OpenIntent,
  Recommendation,
  type StartCallResponse,
  type Variable,
} from "./gen/callercontext/v1/caller_context_pb.ts";
export type {
  CustomerSummary,
  EraseCustomerResponse,
  ForgetCustomerResponse,
  GetCustomerResponse,
  LiftForgetMeResponse,
  MergeCustomersResponse,
  UnlinkIdentifierResponse,
} from "./gen/callercontext/v1/customers_pb.ts";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.ts";
export type { Protocol } from "./transport.ts";
