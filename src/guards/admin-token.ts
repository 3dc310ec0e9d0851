import { timingSafeEqual } from "node:crypto";
import { bearerToken, hashSecret } from "../domain/api-key.ts";

/**
 * Checks `Authorization: Bearer <admin token>` against the stored hash.
 * Both sides are fixed-length hashes, compared in constant time.
 */
export function isAdminAuthorization(authorization: string | null, adminTokenHash: string): boolean {
  const token = bearerToken(authorization);
  if (token === undefined) return false;
  return timingSafeEqual(Buffer.from(hashSecret(token), "hex"), Buffer.from(adminTokenHash, "hex"));
}
