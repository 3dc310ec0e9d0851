// The admin REST API as the CLI uses it. Shapes are the wire's snake_case JSON,
// so what `--json` prints is what the server said.

export interface Account {
  readonly account_id: string;
  readonly billing_account_id: string;
  readonly name: string;
  readonly tier: string;
  readonly quota_remaining: number;
}

export interface CreatedKey {
  readonly key_id: string;
  readonly api_key: string;
  readonly kind: string;
  readonly account_id: string;
}

export interface ApiKey {
  readonly key_id: string;
  readonly account_id: string;
  readonly kind: string;
  readonly prefix: string;
  readonly revoked: boolean;
}

export interface RevokedKey {
  readonly key_id: string;
  readonly revoked: boolean;
}

export interface AdminClientOptions {
  readonly baseUrl: string;
  readonly token: string;
  readonly timeoutMs?: number;
}

/** The server answered with an error status, or could not be reached at all. */
export class AdminApiError extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = "AdminApiError";
    this.status = status;
  }
}

export type AdminClient = ReturnType<typeof createAdminClient>;

export function createAdminClient(options: AdminClientOptions) {
  const timeoutMs = options.timeoutMs ?? 30_000;

  async function call<T>(method: "GET" | "POST", path: string, body?: object): Promise<T> {
    const url = new URL(path, options.baseUrl);
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, accept: "application/json" };
    // The REST adapter decodes every POST body as JSON, so even an empty one is `{}`.
    if (method === "POST") headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: method === "POST" ? JSON.stringify(body ?? {}) : undefined,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new AdminApiError(`cannot reach ${url.origin}: ${networkReason(error)}`);
    }
    const text = await response.text();
    const json = parseJson(text);
    if (!response.ok) throw new AdminApiError(`${errorReason(json, response)} (${response.status})`, response.status);
    if (json === undefined) throw new AdminApiError(`unexpected non-JSON response (${response.status})`);
    return json as T;
  }

  const account = (id: string) => `/admin/v1/accounts/${encodeURIComponent(id)}`;

  return {
    createAccount: async (input: { name: string; tier?: string; quota?: number }) =>
      (await call<{ account: Account }>("POST", "/admin/v1/accounts", input)).account,
    getAccount: async (accountId: string) => (await call<{ account: Account }>("GET", account(accountId))).account,
    setQuota: async (accountId: string, quotaRemaining: number) =>
      (
        await call<{ account: Account }>("POST", `${account(accountId)}/quota`, {
          quota_remaining: quotaRemaining,
        })
      ).account,
    setTier: async (accountId: string, tier: string) =>
      (await call<{ account: Account }>("POST", `${account(accountId)}/tier`, { tier })).account,
    createKey: (accountId: string, kind?: string) =>
      call<CreatedKey>("POST", `${account(accountId)}/keys`, kind === undefined ? {} : { kind }),
    createSignupInvite: async () => call<{ path: string; expires_at: string }>("POST", "/admin/v1/invites", {}),
    listKeys: async (accountId: string) => (await call<{ keys: ApiKey[] }>("GET", `${account(accountId)}/keys`)).keys,
    revokeKey: (keyId: string) => call<RevokedKey>("POST", `/admin/v1/keys/${encodeURIComponent(keyId)}/revoke`),
  };
}

function parseJson(text: string): unknown {
  try {
    return text === "" ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The server's message, with field issues appended so a 400 says what to fix. */
function errorReason(json: unknown, response: Response): string {
  const body = (typeof json === "object" && json !== null ? json : {}) as {
    error?: unknown;
    message?: unknown;
    details?: { issues?: { path?: unknown; message?: unknown }[] };
  };
  const message =
    typeof body.message === "string" && body.message !== ""
      ? body.message
      : typeof body.error === "string"
        ? body.error
        : response.statusText || "request failed";
  const issues = Array.isArray(body.details?.issues)
    ? body.details.issues.map((issue) =>
        [Array.isArray(issue.path) ? issue.path.join(".") : "", String(issue.message ?? "")].filter(Boolean).join(": "),
      )
    : [];
  return issues.length > 0 ? `${message}: ${issues.join("; ")}` : message;
}

/** fetch hides the socket error in `cause`; that is the part an operator can act on. */
function networkReason(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return "timed out";
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  // Dual-stack connects fail with an AggregateError whose message is empty but whose code is set.
  if (cause?.message) return cause.message;
  if (cause?.code) return cause.code;
  return error instanceof Error ? error.message : String(error);
}
