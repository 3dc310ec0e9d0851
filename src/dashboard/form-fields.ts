import type { FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";

type Form = Record<string, string | undefined>;

/** A form field as a string; absent or repeated fields read as empty. */
export const field = (body: unknown, name: string): string => {
  const value = (body as Form | undefined)?.[name];
  return typeof value === "string" ? value : "";
};

/**
 * The origin the links in mail point to: PUBLIC_URL, else this request's own.
 * Set PUBLIC_URL in production: a request's Host is the client's to choose,
 * and a reset link must not point to a host of the client's choosing.
 */
export function mailOrigin(app: AppContext, request: FastifyRequest): string {
  return app.config.mail.publicUrl ?? `${request.protocol}://${request.host}`;
}

/** Every value of a field sent several times (checkboxes of one name); absent reads as none. */
export const fields = (body: unknown, name: string): string[] => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
};
