import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

// Where a test reads the dashboard's mail: the server's log (no SMTP_URL: the
// message is written there once), or a real SMTP server on a local port.

export interface ReceivedMail {
  readonly to: string;
  readonly from: string;
  readonly subject: string;
  readonly text: string;
}

export interface Mailbox {
  /** Every message to the address so far, oldest first. */
  messagesTo(address: string): Promise<ReceivedMail[]>;
}

/** The newest link to the path in a message to the address; waits for the message to arrive. */
export async function linkIn(mailbox: Mailbox, address: string, path: string, after = 0): Promise<string> {
  const pattern = new RegExp(`https?://[^\\s]+${path}[\\w-]+`, "g");
  for (let tries = 0; tries < 200; tries++) {
    const messages = await mailbox.messagesTo(address);
    const links = messages.slice(after).flatMap((m) => m.text.match(pattern) ?? []);
    if (links.length > 0) return links[links.length - 1]!;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no mail to ${address} with a link to ${path}`);
}

/** The messages the server wrote to its log for want of SMTP_URL. */
export function logMailbox(server: { readonly logLines: string[] }): Mailbox {
  return {
    async messagesTo(address) {
      return server.logLines
        .map((line) => JSON.parse(line) as { mail?: { to: string; subject: string }; msg: string })
        .filter((entry) => entry.mail?.to === address)
        .map((entry) => ({ to: address, from: "", subject: entry.mail!.subject, text: entry.msg }));
    },
  };
}

export interface SmtpInbox extends Mailbox {
  /** SMTP_URL for the service. */
  readonly url: string;
  readonly all: ReceivedMail[];
  close(): Promise<void>;
}

/** A real SMTP server (smtp-server) on a free local port, keeping what it receives, parsed by mailparser. */
export async function startSmtpInbox(): Promise<SmtpInbox> {
  const all: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          const to = Array.isArray(parsed.to) ? parsed.to[0] : parsed.to;
          all.push({
            to: to?.value[0]?.address ?? "",
            from: parsed.from?.text ?? "",
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
          });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    all,
    async messagesTo(address) {
      return all.filter((m) => m.to === address);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
