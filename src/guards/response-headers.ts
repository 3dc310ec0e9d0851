import { ConnectError } from "@connectrpc/connect";

/** Adds headers to the response, or to the error's metadata when the call fails. */
export async function withResponseHeaders<R extends { header: Headers }>(
  headers: Record<string, string>,
  call: () => Promise<R>,
): Promise<R> {
  try {
    const res = await call();
    for (const [name, value] of Object.entries(headers)) res.header.set(name, value);
    return res;
  } catch (error) {
    if (error instanceof ConnectError)
      for (const [name, value] of Object.entries(headers)) error.metadata.set(name, value);
    throw error;
  }
}
