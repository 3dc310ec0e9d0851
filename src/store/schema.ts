import type { ColumnType, Insertable, Selectable } from "kysely";
import type { Mode } from "../domain/tenant.ts";

// Table types, one interface per table in migrations/. A tenant is an
// account and a data mode ("test" or "prod"); every customer row belongs to
// exactly one tenant.

type Timestamp = ColumnType<Date, Date, Date>;

export interface AccountTable {
  id: string;
  name: string;
  billing_account_id: string;
  tier: string;
  created_at: Timestamp;
  /** How long a customer is matched and kept after their last call (migration 0018). */
  context_retention_days: ColumnType<number, number | undefined, number>;
  /** The contact figures' repeat window, 1 to 30 days (migration 0021, docs/analytics.md). */
  repeat_window_days: ColumnType<number, number | undefined, number>;
}

/** One of an account's QUOTA_SLOTS shares of its monthly credits (src/domain/quota-slots.ts). */
export interface QuotaSlotTable {
  account_id: string;
  slot: number;
  /** The month ("2026-11") that remaining belongs to; a slot of an earlier month holds its share of the allowance. */
  period: string;
  remaining: number;
}

export interface ApiKeyTable {
  id: string;
  account_id: string;
  kind: Mode;
  secret_hash: string;
  prefix: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
  /** Shown in the dashboard; empty for keys made before keys had names. */
  name: ColumnType<string, string | undefined, string>;
  /** When a rolled key's old secret stops working. */
  expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Written at most about once a minute per key, after the request. */
  last_used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface SettingTable {
  name: string;
  value: string;
}

export interface CustomerTable {
  id: string;
  account_id: string;
  mode: Mode;
  created_at: Timestamp;
  last_call_at: Timestamp;
}

export interface CustomerIdentifierTable {
  account_id: string;
  mode: Mode;
  /** "ani" or "external_id". */
  kind: string;
  /** The external id's key ("crm_id"); empty for ani. */
  namespace: string;
  value: string;
  customer_id: string;
  last_seen_at: Timestamp;
}

export interface CustomerDnisTable {
  customer_id: string;
  dnis: string;
  last_seen_at: Timestamp;
}

export interface CallTable {
  account_id: string;
  mode: Mode;
  call_id: string;
  /** Null for the billing row of a call from an identifier marked "do not remember" (migration 0018). */
  customer_id: string | null;
  call_start: Timestamp;
  call_end: Timestamp | null;
  /** The caller's number at start (its normalised key), if it sent one. */
  ani: string | null;
  /** The summary the call's end sent (migration 0016). */
  summary: ColumnType<string | null, string | null | undefined, string | null>;
  /** The intents the call's end saved, [{intent, status}] (migration 0016). */
  intents: ColumnType<unknown, string | null | undefined, string | null>;
}

export interface IntentTable {
  customer_id: string;
  name: string;
  status: "open" | "resolved";
  attempt_count: number;
  resolution_type: string | null;
  resolution_external_reference: string | null;
  updated_at: Timestamp;
}

export interface VariableTable {
  customer_id: string;
  name: string;
  value: string;
  source: string | null;
  ttl_seconds: number;
  updated_at: Timestamp;
  expires_at: Timestamp;
  /** Shared only with a verified caller (migration 0016). */
  requires_verification: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface IdempotencyKeyTable {
  account_id: string;
  mode: Mode;
  key: string;
  request_hash: string;
  /** The first successful response, as the domain result serialised to JSON. */
  response: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** A customer merged into another: its ref keeps naming the survivor. */
export interface CustomerAliasTable {
  alias_id: string;
  account_id: string;
  mode: Mode;
  customer_id: string;
  merged_at: Timestamp;
}

export interface IntegrationTable {
  id: string;
  account_id: string;
  webhook_id: string;
  platform: string;
  name: string;
  kind: Mode;
  token_hash: string;
  signing_secret: string | null;
  assistant_id: string | null;
  intent_field: string;
  status_field: string;
  /** A JSON array of field names. */
  variable_fields: string;
  store_summary: boolean;
  created_at: Timestamp;
}

export interface UserTable {
  id: string;
  account_id: string;
  /** Lower-cased. */
  email: string;
  /** scrypt, with its parameters and salt; never the password. */
  password_hash: string;
  role: "owner" | "member";
  created_at: Timestamp;
  /** Null until the person opens the link mailed to them; production keys wait for it. */
  email_verified_at: Timestamp | null;
}

export interface SessionTable {
  /** SHA-256 of the cookie's token: a stolen table holds no usable session. */
  token_hash: string;
  user_id: string;
  created_at: Timestamp;
  /** The absolute end: created_at plus SESSION_TTL_HOURS. */
  expires_at: Timestamp;
  /** The idle deadline counts from here; moved forward as the session is used. */
  last_seen_at: Timestamp;
  /** SHA-256 of the CSRF secret issued with the session: a form token of any other secret is refused. */
  csrf_hash: string;
}

export interface UserTokenTable {
  /** SHA-256 of the mailed token. */
  token_hash: string;
  user_id: string;
  purpose: "verify_email" | "reset_password";
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface InviteTable {
  token_hash: string;
  /** The account the invited person joins; null for an operator's invitation to sign up. */
  account_id: string | null;
  created_by: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface AuditEventTable {
  id: ColumnType<string, never, never>;
  account_id: string;
  at: Timestamp;
  actor: string;
  event: string;
  detail: string;
  client_address: string;
}

export interface UsageDayTable {
  account_id: string;
  mode: Mode;
  /** "2026-11-23" (UTC). */
  day: ColumnType<string, string, string>;
  billed: number;
  refused_quota: number;
  refused_rate: number;
}

/** One API request of an account's key (migration 0015): never a body, a header or a secret. */
export interface RequestLogTable {
  account_id: string;
  key_id: string;
  at: Timestamp;
  /** "rest", "connect", "grpc" or "grpc-web". */
  protocol: string;
  /** "POST /v1/calls/start", or "callercontext.v1.CallerContextService/StartCall". */
  route: string;
  /** The HTTP status; for gRPC, the gRPC status code. */
  status: number;
  latency_ms: number;
  request_id: string;
}

/** Billed calls per key and UTC day (migration 0015). */
export interface KeyUsageDayTable {
  key_id: string;
  day: ColumnType<string, string, string>;
  billed: number;
}

/** An account's event endpoint (migration 0011, docs/events.md). */
export interface EventEndpointTable {
  id: string;
  account_id: string;
  kind: Mode;
  url: string;
  event_types: string[];
  include_variable_values: boolean;
  enabled: boolean;
  disabled_reason: string | null;
  secret: string;
  /** The secret before the last roll, still signing beside the new one until it expires. */
  previous_secret: string | null;
  previous_secret_expires_at: Timestamp | null;
  consecutive_failures: ColumnType<number, number | undefined, number>;
  failing_since: Timestamp | null;
  created_at: Timestamp;
}

/** One event for one endpoint: the outbox while pending, the delivery log after. */
export interface EventDeliveryTable {
  id: ColumnType<string, never, never>;
  event_id: string;
  endpoint_id: string;
  event_type: string;
  payload: string;
  ordering_key: string | null;
  state: "pending" | "delivered" | "failed";
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  created_at: Timestamp;
  last_attempt_at: Timestamp | null;
  response_code: number | null;
  latency_ms: number | null;
  last_error: string | null;
}

export interface Schema {
  users: UserTable;
  sessions: SessionTable;
  user_tokens: UserTokenTable;
  invites: InviteTable;
  audit_events: AuditEventTable;
  usage_days: UsageDayTable;
  key_usage_days: KeyUsageDayTable;
  request_log: RequestLogTable;
  accounts: AccountTable;
  quota_slots: QuotaSlotTable;
  api_keys: ApiKeyTable;
  settings: SettingTable;
  customers: CustomerTable;
  customer_identifiers: CustomerIdentifierTable;
  customer_dnis: CustomerDnisTable;
  customer_aliases: CustomerAliasTable;
  calls: CallTable;
  intents: IntentTable;
  variables: VariableTable;
  idempotency_keys: IdempotencyKeyTable;
  integrations: IntegrationTable;
  webhook_receipts: WebhookReceiptTable;
  event_endpoints: EventEndpointTable;
  event_deliveries: EventDeliveryTable;
  forget_me_marks: ForgetMeMarkTable;
}

/** One identifier of a customer who asked not to be remembered: its keyed hash only (migration 0018). */
export interface ForgetMeMarkTable {
  account_id: string;
  mode: Mode;
  /** Hex HMAC-SHA-256 of the tenant and the identifier under the pepper (src/customers/forget-me-hash.ts). */
  identifier_hash: string;
  /** The mark the identifier belongs to: lifting it by one identifier lifts the others too. */
  mark_id: string;
  created_at: Timestamp;
}

export interface WebhookReceiptTable {
  integration_id: string;
  /** Hex SHA-256 of the message's signature headers and body. */
  digest: string;
  received_at: Date;
  /** The first answer, once given. */
  reply_json: string | null;
}

export type AccountRow = Selectable<AccountTable>;
export type NewAccountRow = Insertable<AccountTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;
export type IntegrationRow = Selectable<IntegrationTable>;
export type NewIntegrationRow = Insertable<IntegrationTable>;
export type UserRow = Selectable<UserTable>;
export type AuditEventRow = Selectable<AuditEventTable>;
export type UsageDayRow = Selectable<UsageDayTable>;
export type EventEndpointRow = Selectable<EventEndpointTable>;
export type NewEventEndpointRow = Insertable<EventEndpointTable>;
export type EventDeliveryRow = Selectable<EventDeliveryTable>;
