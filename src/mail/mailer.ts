import type { FastifyBaseLogger } from "fastify";
import nodemailer from "nodemailer";

// The dashboard's mail: through an SMTP server when SMTP_URL is set, else
// written to the log once (a local setup has no server; the links in it are
// how its person signs up). Sending never holds a request: a form answers the
// same, and as fast, whether or not a message goes out and however slow the
// server is; a failure is logged.

export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

export interface Mailer {
  send(mail: Mail): void;
  /** Waits for the messages under way, then closes the connection. */
  close(): Promise<void>;
}

export function createMailer(options: { smtpUrl: string | undefined; from: string; log: FastifyBaseLogger }): Mailer {
  const { smtpUrl, from, log } = options;
  const pending = new Set<Promise<void>>();
  if (smtpUrl === undefined) {
    return {
      send(mail) {
        log.info({ mail: { to: mail.to, subject: mail.subject } }, `mail (no SMTP_URL set):\n${mail.text}`);
      },
      async close() {},
    };
  }
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    send(mail) {
      const sending = transport.sendMail({ from, ...mail }).then(
        () => undefined,
        (error: unknown) => log.error({ err: error, mail: { subject: mail.subject } }, "mail could not be sent"),
      );
      pending.add(sending);
      void sending.finally(() => pending.delete(sending));
    },
    async close() {
      await Promise.all(pending);
      transport.close();
    },
  };
}
