// An account's monthly credits are spread over QUOTA_SLOTS rows, so that
// concurrent calls of one account take them from different rows instead of
// queueing on one (docs/limits.md, "Monthly quota"). The count is part of the
// schema: migration 0007 creates that many rows per account.

export const QUOTA_SLOTS = 16;

/** The slot a charge tries first: spread at random across concurrent calls. */
export function firstSlotToTry(random: () => number = Math.random): number {
  return Math.min(QUOTA_SLOTS - 1, Math.floor(random() * QUOTA_SLOTS));
}
