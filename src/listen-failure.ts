// A listener that cannot bind (a port in use, a privileged port, an address
// not on this host) names the setting that chose it, so the operator knows
// what to change; Node's own error names only the address.

export class ListenError extends Error {
  constructor(setting: string, address: string, cause: unknown) {
    super(`${setting}: cannot listen on ${address} (${reasonOf(cause)}); ${remedyOf(setting, cause)}`);
    this.name = "ListenError";
  }
}

/** `listening`, or a ListenError naming `setting` when it fails to bind. */
export async function listenAs<T>(setting: string, address: string, listening: Promise<T>): Promise<T> {
  try {
    return await listening;
  } catch (error) {
    throw new ListenError(setting, address, error);
  }
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

function reasonOf(error: unknown): string {
  switch (codeOf(error)) {
    case "EADDRINUSE":
      return "the port is in use, by another instance or another program";
    case "EACCES":
      return "permission denied: a port below 1024 needs privileges";
    case "EADDRNOTAVAIL":
      return "the address is not one of this host's";
    default:
      return String((error as Error)?.message ?? error).replace(/\s*\n\s*/g, " ");
  }
}

function remedyOf(setting: string, error: unknown): string {
  return codeOf(error) === "EADDRNOTAVAIL"
    ? `set ${setting} to an address of this host`
    : `set ${setting} to a free port (0 lets the system pick one)`;
}
