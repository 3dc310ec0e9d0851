import type { Mail } from "../mail/mailer.ts";

// What the dashboard mails, in plain text. Links carry one-time tokens; the
// notices name keys and people, never a secret.

const SIGNATURE = "\n\n— Caller Context";

export function verifyEmailMail(to: string, link: string, joining: boolean): Mail {
  return {
    to,
    subject: "Confirm your email address",
    text:
      `${joining ? "You were invited to a Caller Context account." : "Someone (we hope you) signed up for Caller Context with this address."}\n\n` +
      `Open this link to confirm it and finish signing up:\n${link}\n\n` +
      `If it was not you, ignore this message: nothing is done without the link.${SIGNATURE}`,
  };
}

export function signUpTakenMail(to: string, signInLink: string, resetLink: string): Mail {
  return {
    to,
    subject: "Someone tried to sign up with your email address",
    text:
      "Someone tried to create a Caller Context account with this address, which already has one.\n\n" +
      `If it was you, sign in instead:\n${signInLink}\n\nForgot your password? Reset it here:\n${resetLink}\n\n` +
      `If it was not you, nothing changed and you need do nothing.${SIGNATURE}`,
  };
}

export function resetPasswordMail(to: string, link: string, ttlMinutes: number): Mail {
  return {
    to,
    subject: "Reset your password",
    text:
      `Open this link within ${ttlMinutes} minutes to choose a new password. It works once:\n${link}\n\n` +
      `Every session of yours ends when you do. If you did not ask for this, ignore this message.${SIGNATURE}`,
  };
}

export function keyCreatedMail(to: string, input: { actor: string; detail: string }): Mail {
  return {
    to,
    subject: "A new API key was created on your account",
    text:
      `${input.actor} created an API key on your Caller Context account: ${input.detail}.\n\n` +
      `If you do not recognise this, revoke the key on the API keys page and review the security log.${SIGNATURE}`,
  };
}

export function memberAddedMail(to: string, input: { member: string }): Mail {
  return {
    to,
    subject: "A member joined your account",
    text:
      `${input.member} joined your Caller Context account with an invitation link.\n\n` +
      `If you do not recognise them, remove them on the Members page: their sessions end at once.${SIGNATURE}`,
  };
}
