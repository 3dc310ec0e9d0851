// Field and request limits. The spec fixes the first group; the rest are our
// own bounds, documented in docs/limits.md.

export const MAX_CALL_ID_LENGTH = 128;
export const MAX_INTENT_LENGTH = 128;
export const MAX_VARIABLE_NAME_LENGTH = 128;
export const MAX_VARIABLE_VALUE_LENGTH = 1024;
export const DEFAULT_VARIABLE_TTL_SECONDS = 2_592_000; // 30 days
export const IDEMPOTENCY_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

export const MAX_VARIABLE_TTL_SECONDS = 7_776_000; // 90 days, the default context retention (retention.ts)
export const MAX_VARIABLES_PER_CALL = 100;
export const MAX_INTENT_UPDATES_PER_CALL = 20;
export const MAX_EXTERNAL_IDS = 20;
export const MAX_EXTERNAL_ID_KEY_LENGTH = 128;
export const MAX_EXTERNAL_ID_VALUE_LENGTH = 256;
export const MAX_PHONE_LENGTH = 64;
/** Room for a whole P-Asserted-Identity header value that carries the verstat parameter. */
export const MAX_VERSTAT_LENGTH = 512;
export const MAX_CUSTOMER_REF_LENGTH = 128;
export const MAX_SOURCE_LENGTH = 128;
export const MAX_RESOLUTION_FIELD_LENGTH = 256;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const MAX_ACCOUNT_NAME_LENGTH = 200;
export const MAX_SUMMARY_LENGTH = 4000;
/** How many of the customer's latest summarised calls start and identify return. */
export const RECENT_CALLS = 3;

// A 400 lists the first issues only, each path segment (a variable name, say)
// cut short: over gRPC the list travels in a trailer, and HTTP/2 peers reset
// the stream when a header block passes their limit (tens of KiB).
export const MAX_REPORTED_ISSUES = 20;
export const MAX_REPORTED_PATH_SEGMENT_LENGTH = 256;

export const DAY_MS = 24 * 60 * 60 * 1000;
export const CALL_ID_REUSE_DAYS = 30;
