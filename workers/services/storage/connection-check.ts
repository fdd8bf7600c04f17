import { AwsClient } from "aws4fetch";
import { ru } from "../../../shared/i18n/ru";
import type { Fetcher, S3Credentials, S3Location } from "./s3-backend";

/** How long the check waits for the endpoint: an administrator is waiting at the form. */
export const CHECK_TIMEOUT_MS = 5_000;

/** S3 error codes that mean the keys themselves are wrong (not merely without a right on this bucket). */
const BAD_KEYS = new Set(["InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken", "InvalidSecurity", "AuthorizationHeaderMalformed"]);

/**
 * Tries an S3-compatible endpoint with the given keys before anything is saved: one signed ListObjectsV2 of at most
 * one key on the bucket, `redirect: "manual"`, a short timeout. Answers null when the bucket answered, else the
 * Russian reason the administrator sees («Хранилище не отвечает», «Неверные ключи доступа», «Бакет не найден» …).
 * The endpoint address itself was already judged by the outbound-address rules (workers/lib/outbound-url.ts).
 * @example const problem = await checkConnection({ url, bucket }, { accessKeyId, secretAccessKey }); if (problem) throw …
 */
export async function checkConnection(location: S3Location, credentials: S3Credentials, fetcher?: Fetcher): Promise<string | null> {
  const t = ru.catalog.storageCheck;
  const client = new AwsClient({
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    sessionToken: credentials.sessionToken || undefined,
    service: "s3",
    region: location.region || "auto",
  });
  const url = `${location.url.replace(/\/+$/, "")}/${encodeURIComponent(location.bucket)}?list-type=2&max-keys=1`;
  let res: Response;
  try {
    const request = await client.sign(url, { method: "GET", redirect: "manual", signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
    res = await (fetcher ?? ((r: Request) => fetch(r)))(request);
  } catch {
    return t.noAnswer;
  }
  const text = await res.text().catch(() => "");
  if (res.ok) return text.includes("<ListBucketResult") ? null : t.notS3;
  const code = /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1] ?? null;
  if (code === "NoSuchBucket" || (res.status === 404 && code === null)) return t.noBucket;
  if (code !== null && BAD_KEYS.has(code)) return t.badKeys;
  if (res.status === 401) return t.badKeys;
  if (res.status === 403) return t.denied;
  if (res.status >= 300 && res.status < 400) return t.redirect;
  if (res.status >= 500) return t.serverError(res.status);
  return t.unexpected(res.status, code);
}
