import { insertEmailStatement } from "../../db/repositories/shortlink.repository";
import { newId } from "../../lib/ids";
import type { RequestContext } from "../access";

/** A message to send: plain UTF-8 text. */
export interface OutgoingEmail {
  to: readonly string[];
  subject: string;
  text: string;
  about?: { type: string; id: string };
  actorId?: string | null;
}

/** The optional Email Workers binding (wrangler.toml `[[send_email]]`, name SHORTLINK_EMAIL) and its sender. */
interface EmailBinding {
  send(message: unknown): Promise<void>;
}
type EmailEnv = { SHORTLINK_EMAIL?: EmailBinding; EMAIL_FROM?: string };

function encodeBase64Utf8(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** A minimal RFC 5322 message with UTF-8 subject and body (base64), which is all Email Workers needs. */
export function mimeMessage(from: string, to: string, subject: string, text: string, now = new Date()): string {
  const body = encodeBase64Utf8(text).replace(/.{1,76}/g, "$&\r\n");
  return [
    `From: ${from}`,
    `To: ${to}`,
    `Subject: =?UTF-8?B?${encodeBase64Utf8(subject)}?=`,
    `Date: ${now.toUTCString()}`,
    `Message-ID: <${newId()}@${from.split("@")[1] ?? "localhost"}>`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=UTF-8",
    "Content-Transfer-Encoding: base64",
    "",
    body,
  ].join("\r\n");
}

/**
 * Sends a message to each recipient through the `SHORTLINK_EMAIL` send_email binding when it is configured (with
 * `EMAIL_FROM` as the sender); otherwise, locally and in tests, the message is only recorded. Either way one
 * `outgoing_emails` row says what happened (sent, recorded, or failed with the error) and a log line names it:
 * a message is never dropped silently. A failed send does not fail the caller (the link exists; the row shows it).
 */
export async function sendEmail(rc: RequestContext, mail: OutgoingEmail): Promise<"sent" | "recorded" | "failed"> {
  const env = rc.env as Env & EmailEnv;
  let status: "sent" | "recorded" | "failed" = "recorded";
  let error: string | null = null;
  if (env.SHORTLINK_EMAIL && env.EMAIL_FROM) {
    try {
      // Loaded only when the binding exists: local runs without it never touch the module.
      const { EmailMessage } = await import("cloudflare:email");
      for (const to of mail.to) {
        await env.SHORTLINK_EMAIL.send(new EmailMessage(env.EMAIL_FROM, to, mimeMessage(env.EMAIL_FROM, to, mail.subject, mail.text)));
      }
      status = "sent";
    } catch (e) {
      status = "failed";
      error = String(e).slice(0, 1000);
    }
  }
  await insertEmailStatement(rc.db, {
    id: newId(),
    ctime: Date.now(),
    recipients: [...mail.to],
    subject: mail.subject,
    body: mail.text,
    status,
    error,
    objectType: mail.about?.type ?? null,
    objectId: mail.about?.id ?? null,
    actorId: mail.actorId ?? null,
  }).run();
  const line = JSON.stringify({ level: status === "failed" ? "warn" : "info", requestId: rc.requestId, message: `email ${status}`, to: mail.to, subject: mail.subject, error });
  if (status === "failed") console.warn(line);
  else console.info(line);
  return status;
}
