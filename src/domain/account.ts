import type { Mode } from "./tenant.ts";
import type { Tier } from "./tiers.ts";

// An account and its keys as the operator sees them. A key's secret appears
// only in the result of creating it.

export interface Account {
  readonly accountId: string;
  readonly billingAccountId: string;
  readonly name: string;
  readonly tier: Tier;
  readonly quotaRemaining: number;
  /** Days a customer is matched and kept after their last call (src/domain/retention.ts). */
  readonly contextRetentionDays: number;
  /** Days within which a customer's next call is a repeat contact (src/domain/repeat-window.ts). */
  readonly repeatWindowDays: number;
}

export interface ApiKeySummary {
  readonly keyId: string;
  readonly accountId: string;
  readonly kind: Mode;
  /** The first characters of the secret, enough to recognise it. */
  readonly prefix: string;
  readonly revoked: boolean;
  /** Empty for keys made before keys had names. */
  readonly name: string;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
  /** When a rolled key's old secret stops working. */
  readonly expiresAt: Date | null;
  /** Recorded at most about once a minute. */
  readonly lastUsedAt: Date | null;
}

export interface CreatedKey {
  readonly keyId: string;
  readonly accountId: string;
  readonly kind: Mode;
  /** The secret; shown once. */
  readonly apiKey: string;
}

/** The largest quota the store keeps (a PostgreSQL integer). */
export const MAX_QUOTA = 2_147_483_647;
