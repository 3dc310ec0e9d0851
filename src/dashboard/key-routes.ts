import type { FastifyInstance, FastifyReply } from "fastify";
import { createOwnedKey, findLiveKey, listOwnedKeys, revokeOwnedKey } from "../accounts/owned-keys.ts";
import { type ROLL_GRACES, rollKey } from "../accounts/roll-key.ts";
import type { AppContext } from "../context.ts";
import { keyCreatedMail } from "../dashboard-auth/mail-texts.ts";
import { notifyOwners } from "../dashboard-auth/owner-notices.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { UserRow } from "../store/schema.ts";
import { accountDepsOf } from "../use-case-deps.ts";
import { auditAction } from "./audit-action.ts";
import { createFlashes } from "./flash.ts";
import { formErrors, orMessage } from "./messages.ts";
import { quickstartFor } from "./quickstart.ts";
import { allowed, productionAllowed } from "./role-guard.ts";
import { signedIn } from "./session-guard.ts";

type Form = Record<string, string | undefined>;
type KeyParams = { Params: { id: string } };
const field = (body: unknown, name: string) => {
  const value = (body as Form | undefined)?.[name];
  return typeof value === "string" ? value : "";
};

/** The roll form's choices, in order. */
export const GRACE_LABELS: Record<keyof typeof ROLL_GRACES, string> = {
  now: "Now",
  "1h": "1 hour",
  "24h": "24 hours",
  "7d": "7 days",
};

export function registerKeyRoutes(scope: FastifyInstance, app: AppContext, mailer: Mailer): void {
  const deps = accountDepsOf(app);
  /** Every owner hears of a new secret on the account, whoever made it. */
  const notify = (user: UserRow, detail: string) =>
    notifyOwners(app.database.db, mailer, user.account_id, (to) => keyCreatedMail(to, { actor: user.email, detail }));
  const ownedKey = (user: UserRow, id: string) => findLiveKey(deps, user.account_id, id);
  const flashes = createFlashes(app.secrets, app.clock);

  const keysPage = async (reply: FastifyReply, user: UserRow, extra: Record<string, unknown> = {}, status = 200) => {
    // This instance's unwritten "last used" times first, so a key just used shows it.
    await app.meter.flush();
    return reply.code(status).view("keys.eta", {
      title: "API keys",
      tab: "keys",
      keys: await listOwnedKeys(deps, user.account_id),
      welcome: false,
      created: undefined,
      rolled: undefined,
      quickstart: undefined,
      errors: {},
      values: { name: "", kind: "test" },
      ...extra,
    });
  };

  // A new or rolled key's secret arrives here once, from the form's redirect (flash.ts).
  scope.get("/keys", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const { key, rolled, welcome } = flashes.take(request, reply);
    return keysPage(reply, user, {
      created: key,
      rolled: rolled && { oldEndsAt: new Date(rolled.oldEndsAt), immediate: rolled.immediate },
      welcome: welcome === true,
      quickstart: key && quickstartFor(request, key.secret),
    });
  });

  scope.post("/keys", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const values = { name: field(request.body, "name"), kind: field(request.body, "kind") };
    if (values.kind === "prod" && !(await productionAllowed(request, reply))) return reply;
    try {
      const created = await createOwnedKey(deps, user.account_id, values);
      const detail = `${created.keyId} (${created.name}, ${created.kind})`;
      await auditAction(app, request, "key_created", detail);
      await notify(user, detail);
      flashes.leave(request, reply, { key: created });
      return reply.redirect("/dashboard/keys", 303);
    } catch (error) {
      const { status, errors } = formErrors(error);
      return keysPage(reply, user, { errors, values }, status);
    }
  });

  scope.get<KeyParams>("/keys/:id/revoke", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const key = await orMessage(reply, () => findLiveKey(deps, user.account_id, request.params.id));
    if (key) return reply.view("revoke-key.eta", { title: "Revoke key", tab: "keys", key });
  });

  scope.post<KeyParams>("/keys/:id/revoke", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const live = await orMessage(reply, () => ownedKey(user, request.params.id));
    if (!live) return;
    if (live.kind === "prod" && !(await allowed(request, reply, "revoke_production_key"))) return reply;
    const key = await orMessage(reply, () => revokeOwnedKey(deps, user.account_id, request.params.id));
    if (!key) return;
    await auditAction(app, request, "key_revoked", `${key.keyId} (${key.name}, ${key.kind})`);
    return reply.redirect("/dashboard/keys", 303);
  });

  scope.post<KeyParams>("/keys/:id/roll", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const grace = field(request.body, "grace");
    const live = await orMessage(reply, () => ownedKey(user, request.params.id));
    if (!live) return;
    if (live.kind === "prod" && !(await allowed(request, reply, "roll_production_key"))) return reply;
    const rolled = await orMessage(reply, () => rollKey(deps, user.account_id, request.params.id, grace));
    if (!rolled) return;
    await auditAction(
      app,
      request,
      "key_rolled",
      `${rolled.old.keyId} → ${rolled.keyId} (${rolled.name}, ${rolled.kind}); old secret ends ${rolled.oldEndsAt.toISOString()}`,
    );
    await notify(user, `${rolled.keyId} (${rolled.name}, ${rolled.kind}), rolled from ${rolled.old.keyId}`);
    flashes.leave(request, reply, {
      key: { keyId: rolled.keyId, secret: rolled.secret, name: rolled.name, kind: rolled.kind },
      rolled: { oldEndsAt: rolled.oldEndsAt.toISOString(), immediate: grace === "now" },
    });
    return reply.redirect("/dashboard/keys", 303);
  });
}
