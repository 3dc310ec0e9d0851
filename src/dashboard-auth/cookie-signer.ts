import { Signer } from "@fastify/cookie";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { Db } from "../store/database.ts";
import { dashboardCookieSecret } from "./cookie-secret.ts";

/**
 * Signs the dashboard's cookies with the secret stored in the database. The
 * service listens before its database is reachable, so the secret is read
 * when the first dashboard request arrives (`load`), not at start-up.
 */
export interface LazyCookieSigner {
  readonly signer: { sign(value: string): string; unsign(value: string): ReturnType<Signer["unsign"]> };
  load(): Promise<void>;
}

export function createLazyCookieSigner(db: Db, secrets: SecretBox): LazyCookieSigner {
  let loaded: Signer | undefined;
  let loading: Promise<void> | undefined;
  const current = (): Signer => {
    if (loaded === undefined) throw new Error("the dashboard cookie secret is not loaded yet");
    return loaded;
  };
  return {
    signer: { sign: (value) => current().sign(value), unsign: (value) => current().unsign(value) },
    load() {
      if (loaded !== undefined) return Promise.resolve();
      loading ??= dashboardCookieSecret(db, secrets).then(
        (secret) => {
          loaded = new Signer(secret);
        },
        (error) => {
          // A database that was not there yet is asked again by the next request.
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
  };
}
