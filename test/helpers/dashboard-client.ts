import { linkIn, type Mailbox } from "./mailbox.ts";

// A browser without a browser: keeps the dashboard's cookies, reads each
// page's CSRF token and posts forms as HTML forms are posted.

export interface Page {
  readonly status: number;
  readonly location: string | null;
  readonly headers: Headers;
  readonly html: string;
  /** Where a followed 303 led (submit and confirm follow one): the page is that GET's answer. */
  readonly redirectedTo?: string;
}

export type FormValues = Record<string, string | readonly string[]>;

/** A form's body as a browser encodes it: a field per value, in order. */
function encodeForm(form: FormValues): string {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) {
    for (const one of typeof value === "string" ? [value] : value) body.append(name, one);
  }
  return body.toString();
}

export interface DashboardClient {
  get(path: string): Promise<Page>;
  /**
   * Posts a form with the CSRF token of the last page seen (unless `_csrf` is
   * given); an array is a field sent once per value, as checked checkboxes are.
   */
  post(path: string, form: FormValues): Promise<Page>;
  /**
   * Posts a form as a browser does: a 303 answer (Post/Redirect/Get) is
   * followed to its page, which is returned with `redirectedTo` set.
   */
  submit(path: string, form: FormValues): Promise<Page>;
  /** Signs up on the open sign-up form and confirms the address with the mailed link; returns the first key's secret. */
  signUp(email: string, password: string, accountName: string): Promise<string>;
  /** Opens a mailed confirmation link and confirms it (following the redirect): signed in from then on. */
  confirm(link: string): Promise<Page>;
  signIn(email: string, password: string): Promise<Page>;
  readonly cookies: Map<string, string>;
}

export interface DashboardClientOptions {
  /** Where sign-up's confirmation mail is read. */
  readonly mailbox?: Mailbox;
  /** Sent with every request (an X-Forwarded-For, say, behind TRUST_PROXY). */
  readonly headers?: Record<string, string>;
}

export function createDashboardClient(baseUrl: string, options: DashboardClientOptions = {}): DashboardClient {
  const cookies = new Map<string, string>();
  let csrf = "";
  const send = async (path: string, init: RequestInit = {}): Promise<Page> => {
    const response = await fetch(new URL(path, baseUrl), {
      ...init,
      redirect: "manual",
      headers: {
        ...options.headers,
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (value === "" || /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
    const html = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    if (token !== undefined) csrf = token;
    return { status: response.status, location: response.headers.get("location"), headers: response.headers, html };
  };
  const client: DashboardClient = {
    cookies,
    get: (path) => send(path),
    post: (path, form) =>
      send(path, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: encodeForm({ _csrf: csrf, ...form }),
      }),
    async submit(path, form) {
      const answer = await client.post(path, form);
      if (answer.status !== 303 || answer.location === null) return answer;
      return { ...(await client.get(answer.location)), redirectedTo: answer.location };
    },
    async signUp(email, password, accountName) {
      if (options.mailbox === undefined) throw new Error("signUp needs a mailbox to read the confirmation link");
      const before = (await options.mailbox.messagesTo(email.toLowerCase())).length;
      await client.get("/dashboard/sign-up");
      const sent = await client.submit("/dashboard/sign-up", { email, password, account_name: accountName });
      if (sent.status !== 200) throw new Error(`sign-up failed: ${sent.status}`);
      const link = await linkIn(options.mailbox, email.toLowerCase(), "/dashboard/verify/", before);
      const page = await client.confirm(link);
      const secret = /id="secret"[^>]*value="(sk_test_[0-9A-Za-z]+)"/.exec(page.html)?.[1];
      if (page.status !== 200 || secret === undefined) throw new Error(`sign-up failed: ${page.status}`);
      return secret;
    },
    async confirm(link) {
      const path = new URL(link).pathname;
      await client.get(path);
      return client.submit(path, {});
    },
    async signIn(email, password) {
      await client.get("/dashboard/sign-in");
      return client.post("/dashboard/sign-in", { email, password });
    },
  };
  return client;
}
