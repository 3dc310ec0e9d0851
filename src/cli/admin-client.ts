import { type Client, Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { codeToHttpStatus } from "@connectrpc/connect/protocol-connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AdminService } from "../../gen/callercontext/v1/admin_pb.ts";
import { ValidationFailureSchema } from "../../gen/callercontext/v1/errors_pb.ts";

// The admin API as the CLI uses it: a Connect client generated from
// admin.proto, so the proto stays the one contract between them.

export type AdminClient = Client<typeof AdminService>;

export interface AdminClientOptions {
  readonly baseUrl: string;
  readonly token: string;
  readonly timeoutMs?: number;
  /** The file baseUrl was read from, named when it cannot be reached (the service may have stopped). */
  readonly foundIn?: string;
}

export function createAdminClient(options: AdminClientOptions): AdminClient {
  const origin = new URL(options.baseUrl).origin;
  const authorize: Interceptor = (next) => async (req) => {
    req.header.set("authorization", `Bearer ${options.token}`);
    try {
      return await next(req);
    } catch (error) {
      throw describe(error, origin, options.foundIn);
    }
  };
  const transport = createConnectTransport({
    baseUrl: options.baseUrl,
    httpVersion: "1.1",
    interceptors: [authorize],
    defaultTimeoutMs: options.timeoutMs ?? 30_000,
  });
  return createClient(AdminService, transport);
}

/**
 * The error an operator reads (main prints its rawMessage): the server's
 * message with the HTTP status it answered, or why it could not be reached.
 */
function describe(error: unknown, origin: string, foundIn: string | undefined): ConnectError {
  const connectError = ConnectError.from(error);
  const unreachable = networkReason(connectError.cause);
  const source = foundIn === undefined ? "" : ` (read from ${foundIn}: is the service running?)`;
  if (unreachable !== undefined) {
    return new ConnectError(`cannot reach ${origin}: ${unreachable}${source}`, Code.Unavailable);
  }
  if (connectError.code === Code.Unimplemented) {
    // What an operator meets pointing the CLI at the public port, where the admin API is not served by default.
    return new ConnectError(
      `${origin} does not serve the admin API (404): point CALLER_CONTEXT_URL at the admin listener ` +
        "(ADMIN_LISTEN; logged as 'admin API listening'), or unset it on the service's host",
      connectError.code,
    );
  }
  if (connectError.code === Code.DeadlineExceeded) {
    return new ConnectError(`cannot reach ${origin}: timed out`, Code.DeadlineExceeded);
  }
  // The status the Connect protocol gives the code: what the server answered.
  const status = codeToHttpStatus(connectError.code);
  // Field issues are appended, so a refusal says what to fix.
  const issues = connectError
    .findDetails(ValidationFailureSchema)
    .flatMap((failure) =>
      failure.issues.map((issue) => [issue.path.join("."), issue.message].filter(Boolean).join(": ")),
    );
  const message = connectError.rawMessage || Code[connectError.code];
  const text = issues.length > 0 ? `${message}: ${issues.join("; ")}` : message;
  return new ConnectError(`${text} (${status})`, connectError.code);
}

/** A socket error (ECONNREFUSED, ENOTFOUND…) is what an operator can act on; undefined for a server's answer. */
function networkReason(cause: unknown): string | undefined {
  const failure = cause as { code?: unknown; message?: unknown; errors?: { code?: unknown }[] } | undefined;
  if (typeof failure?.code !== "string" || !/^E[A-Z]+$/.test(failure.code)) return undefined;
  // Dual-stack connects fail with an AggregateError whose message is empty but whose code is set.
  return typeof failure.message === "string" && failure.message !== "" ? failure.message : failure.code;
}
