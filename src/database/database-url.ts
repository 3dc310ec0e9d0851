// DATABASE_URL as libpq reads it: one host or a list of them
// (`postgres://user@h1:5432,h2:5433/db?target_session_attrs=read-write`).
// node-postgres takes one host per connection, so the list is split here into
// one single-host URL per host, tried in order (primary-locator.ts).

export interface DatabaseHost {
  /** `host:port`, for messages. */
  readonly label: string;
  readonly host: string;
  readonly port: number;
  /** The same URL with this host alone and without target_session_attrs, for node-postgres. */
  readonly url: string;
}

export interface DatabaseAddress {
  /** In the order given; empty when the URL names no host (a Unix socket given as `?host=/dir`). */
  readonly hosts: readonly DatabaseHost[];
  /** target_session_attrs=read-write: only a server that accepts writes will do. */
  readonly readWrite: boolean;
  /** The URL without target_session_attrs, when there is no host list to split. */
  readonly url: string;
}

export const DATABASE_URL_FORM =
  "must be postgres://[user[:password]@]host[:port][,host[:port]...]/database[?target_session_attrs=read-write]";

const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/;
const DEFAULT_PORT = 5432;

/** The URL's parts, or undefined when it is not a PostgreSQL URL node-postgres could use. */
export function parseDatabaseUrl(text: string): DatabaseAddress | undefined {
  const parts = URL_PARTS.exec(text);
  if (!parts) return undefined;
  const [, scheme, userInfo = "", hostList = "", path = "", query = ""] = parts;
  const params = new URLSearchParams(query.slice(1));
  const attrs = params.get("target_session_attrs") ?? "any";
  if (attrs !== "any" && attrs !== "read-write") return undefined;
  params.delete("target_session_attrs");
  const rest = `${path}${params.size > 0 ? `?${params}` : ""}`;
  const hosts: DatabaseHost[] = [];
  for (const entry of hostList === "" ? [] : hostList.split(",")) {
    const host = parseHost(entry);
    if (host === undefined) return undefined;
    const url = `${scheme}${userInfo}${entry}${rest}`;
    if (!URL.canParse(url)) return undefined;
    hosts.push({ ...host, label: `${host.host}:${host.port}`, url });
  }
  const url = `${scheme}${userInfo}${hostList}${rest}`;
  if (hosts.length === 0 && !URL.canParse(url)) return undefined;
  return { hosts, readWrite: attrs === "read-write", url };
}

function parseHost(entry: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry);
  if (!match) return undefined;
  const port = match[2] === undefined ? DEFAULT_PORT : Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1].replace(/^\[(.*)\]$/, "$1"), port };
}
