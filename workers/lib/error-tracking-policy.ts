/**
 * What the error tracker (Sentry) may record, shared by the Worker and the browser and kept pure (unit-tested in
 * Node): SPEC §9's sample rates, and the scrubbing every event, transaction and breadcrumb goes through before it
 * leaves the process. Decision 015 explains the choices.
 */

/** SPEC §9: traces 1, session replay 0.1, replay on error 1. */
export const TRACES_SAMPLE_RATE = 1;
export const REPLAYS_SESSION_SAMPLE_RATE = 0.1;
export const REPLAYS_ON_ERROR_SAMPLE_RATE = 1;

export const FILTERED = "[Filtered]";

/**
 * The SDKs' own collection switches (Sentry's `dataCollection`): no automatic user data (IP addresses), no cookies,
 * no request or response bodies, and never the credential headers. The scrubber below still runs on everything.
 */
export const DATA_COLLECTION = {
  userInfo: false,
  cookies: false,
  httpBodies: [] as never[],
  httpHeaders: { request: { deny: ["authorization", "proxy-authorization", "cookie", "x-api-key"] }, response: { deny: ["set-cookie"] } },
  urlQueryParams: { deny: ["sig", "token", "access_token", "code", "state", "password", "passwd"] },
};

/**
 * Keys whose values are secrets wherever they appear (headers, bodies, query strings, extra data): credentials,
 * tokens and cookies, and the signature parts of signed links (`sig`, S3's X-Amz-Signature / X-Amz-Credential).
 */
const SECRET_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|cookies|x-api-key|sig|code|state)$|pass(wd|word)?|secret|token|bearer|session|api[-_]?key|signature|credential|creds|refresh/i;

/** Secrets recognisable in any text: bearer credentials, JWTs, robot tokens (mamr_…), cookies of ours. */
const SECRET_TEXT: [RegExp, string][] = [
  [/\bBearer\s+[^\s"',;]+/gi, `Bearer ${FILTERED}`],
  [/\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]+/g, FILTERED],
  [/\bmamr_[\w-]{8,}/g, FILTERED],
  [/\b(__Host-)?mam_(refresh|sso)=[^;\s"']+/g, `$1mam_$2=${FILTERED}`],
  // a shortlink's id is its secret (anyone with /sl/<id> can open it)
  [/\/sl\/(info\/|media\/)?[A-Za-z0-9_-]{16,}/g, `/sl/$1${FILTERED}`],
];

/** Query parameters of a URL (or of a bare query string) whose names are secrets, replaced by FILTERED. */
function scrubQuery(text: string): string {
  return text.replace(/(^|[?&])([^=&#\s?]+)=([^&#\s"']*)/g, (all, sep: string, key: string) =>
    SECRET_KEY.test(decodeURIComponentSafe(key)) ? `${sep}${key}=${FILTERED}` : all,
  );
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A string with every recognisable secret removed. */
export function scrubText(text: string): string {
  let out = scrubQuery(text);
  for (const [pattern, replacement] of SECRET_TEXT) out = out.replace(pattern, replacement);
  return out;
}

const MAX_DEPTH = 12;

/**
 * A copy of any event-shaped value with secret keys' values replaced and secrets inside strings removed. Cycles and
 * very deep values end in FILTERED rather than a crash: scrubbing must never lose the event itself.
 */
export function scrubValue<T>(value: T, depth = 0, seen = new WeakSet<object>()): T {
  if (typeof value === "string") return scrubText(value) as T;
  if (value === null || typeof value !== "object") return value;
  if (depth > MAX_DEPTH || seen.has(value)) return FILTERED as T;
  seen.add(value);
  if (Array.isArray(value)) {
    // header lists as [name, value] pairs
    if (value.length === 2 && typeof value[0] === "string" && SECRET_KEY.test(value[0])) return [value[0], FILTERED] as T;
    return value.map((item) => scrubValue(item, depth + 1, seen)) as T;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    out[key] = SECRET_KEY.test(key) && item !== null && item !== undefined && item !== "" ? FILTERED : scrubValue(item, depth + 1, seen);
  }
  return out as T;
}

/** The fields of a Sentry event this policy touches (the SDKs' Event types are wider; any event passes through). */
interface EventFields {
  request?: { cookies?: unknown; data?: unknown };
  user?: { id?: string | number };
}

/**
 * `beforeSend` / `beforeSendTransaction`: the whole event scrubbed; cookies and any request body dropped outright
 * (they are never needed to understand an error and are where passwords travel), the user reduced to its id.
 */
export function scrubEvent<E extends object>(event: E): E {
  const out = scrubValue(event);
  const fields = out as EventFields;
  if (fields.request) {
    if ("cookies" in fields.request) fields.request.cookies = FILTERED;
    if (fields.request.data !== undefined) fields.request.data = FILTERED;
  }
  if (fields.user) fields.user = fields.user.id !== undefined ? { id: fields.user.id } : {};
  return out;
}

/** `beforeBreadcrumb`: fetch/navigation URLs and console messages scrubbed like events. */
export function scrubBreadcrumb<B extends object>(breadcrumb: B): B {
  return scrubValue(breadcrumb);
}
