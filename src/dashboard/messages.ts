import type { FastifyReply } from "fastify";
import { DomainError } from "../domain/domain-error.ts";
import { httpStatusOf } from "../pipeline/error-response.ts";
import { publicError } from "../pipeline/public-error.ts";

/** A page that only says what happened and where to go next. */
export function renderMessage(reply: FastifyReply, status: number, heading: string, text: string) {
  return reply.code(status).view("message.eta", { title: heading, heading, text });
}

/** The form's errors keyed by field, and one message for the page. */
export function formErrors(error: unknown): { status: number; errors: Record<string, string>; message: string } {
  if (!(error instanceof DomainError)) throw error;
  const errors: Record<string, string> = {};
  for (const issue of error.issues) errors[issue.path[0] ?? ""] ??= issue.message;
  return {
    status: statusOf(error),
    errors,
    message: error.issues.length > 0 ? "Please correct the fields marked below." : error.message,
  };
}

/** Runs a use case; a DomainError becomes a message page with the right status. */
export async function orMessage<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const status = statusOf(error);
    if (status === 404) await renderMessage(reply, status, "Not found", error.message);
    else if (error.code === "failed_precondition") await renderMessage(reply, status, "Not possible", error.message);
    else await renderMessage(reply, status, "Please check the form", error.issues[0]?.message ?? error.message);
    return undefined;
  }
}

/** A page's status for a refused use case: the same as the API answers it with. */
function statusOf(error: DomainError): number {
  return httpStatusOf(publicError(error).code);
}
