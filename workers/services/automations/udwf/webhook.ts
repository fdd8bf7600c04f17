import { z } from "zod";
import { toHex } from "../../../lib/ids";
import { outboundUrlProblem } from "../../../lib/outbound-url";

/** Header carrying `sha256=<hex HMAC-SHA256 of the raw body>` keyed with the automation's secret. */
export const SIGNATURE_HEADER = "X-Mam-Signature";

const WebhookConfigSchema = z.object({ AUTOMATION_WEBHOOK_ALLOW_LOOPBACK: z.string().optional() });

/**
 * Whether webhooks may call loopback addresses: only when `AUTOMATION_WEBHOOK_ALLOW_LOOPBACK` is "true" (set for
 * the local end-to-end and integration tests, never in production).
 */
export function webhookAllowsLoopback(env: Env): boolean {
  return WebhookConfigSchema.parse(env).AUTOMATION_WEBHOOK_ALLOW_LOOPBACK === "true";
}

/** `sha256=<hex>` over `body` with `secret` (hex key bytes as text, like GitHub's webhook signatures). */
export async function signBody(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body));
  return `sha256=${toHex(new Uint8Array(mac))}`;
}

export class WebhookRefused extends Error {}

/**
 * POSTs a JSON body, signed, to an address that passes the policy (checked again here: configuration may have
 * changed since the setup was saved). Redirects are not followed (they could lead to a private address); a
 * non-2xx answer throws so the step is retried.
 */
export async function sendWebhook(env: Env, url: string, secret: string, payload: unknown): Promise<number> {
  const problem = outboundUrlProblem(url, { allowLoopback: webhookAllowsLoopback(env) });
  if (problem) throw new WebhookRefused(problem);
  const body = JSON.stringify(payload);
  const response = await fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/json", "user-agent": "edge-mam-automations", [SIGNATURE_HEADER]: await signBody(secret, body) },
    body,
    signal: AbortSignal.timeout(15_000),
  });
  await response.body?.cancel();
  if (response.status < 200 || response.status >= 300) throw new Error(`HTTP ${response.status}`);
  return response.status;
}
