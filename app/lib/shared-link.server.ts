import { redirect, type AppLoadContext } from "@remix-run/cloudflare";
import { AppError } from "../../workers/lib/errors";
import {
  formatMoment,
  isClosed,
  openShortlink,
  unlockCookieName,
  unlockLink,
  type SharedInfo,
} from "../../workers/services/sharing";

/** What the public /sl page renders: the item, or why it does not open (each with its HTTP status). */
export type SharedView =
  | { state: "ok"; info: SharedInfo; until: string | null; untilIso: string | null; origin: string }
  | { state: "password"; error?: string }
  | { state: "expired"; at: string; atIso: string }
  | { state: "not_yet"; at: string; atIso: string }
  | { state: "revoked" }
  | { state: "not_found" };

// The password form is an ordinary page (200), not an error: a 401 document makes the browser log a console error on
// every visit to a password link.
const STATUS: Record<SharedView["state"], number> = { ok: 200, password: 200, expired: 410, not_yet: 403, revoked: 410, not_found: 404 };

export function statusOf(view: SharedView): number {
  return STATUS[view.state];
}

function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

const visitorOf = (request: Request) => ({ ip: request.headers.get("cf-connecting-ip") });

/**
 * The page's loader: opens the link through the same service as `GET /api/sl/info/{id}` (every rule, the unlock
 * cookie, counting and audit). Moments come as ISO plus a UTC text for the first paint; the page shows them in the
 * visitor's own time zone once hydrated (LocalMoment). `?folder=` walks inside a shared folder (never out of it).
 */
export async function loadSharedView(request: Request, context: AppLoadContext, id: string): Promise<SharedView> {
  const params = new URL(request.url).searchParams;
  const page = Math.min(100_000, Math.max(0, Number.parseInt(params.get("page") ?? "0", 10) || 0));
  const folder = params.get("folder") ?? undefined;
  const result = await openShortlink(context.rc, id, readCookie(request, unlockCookieName(id)), visitorOf(request), page, folder);
  if (!isClosed(result)) {
    const end = result.time_range[1];
    return {
      state: "ok",
      info: result,
      until: end ? formatMoment(Date.parse(end)) : null,
      untilIso: end,
      origin: new URL(request.url).origin,
    };
  }
  if (result.state === "expired" || result.state === "not_yet") {
    return { state: result.state, at: formatMoment(result.at), atIso: new Date(result.at).toISOString() };
  }
  return { state: result.state };
}

/**
 * The password form's action: a right password sets the link's unlock cookie and reloads the page (works without
 * JavaScript); a wrong one, or a throttled attempt, answers the form's error.
 */
export async function unlockSharedView(request: Request, context: AppLoadContext, id: string): Promise<Response | { error: string }> {
  const form = await request.formData();
  const password = String(form.get("password") ?? "").slice(0, 1024);
  try {
    const { cookie, maxAge } = await unlockLink(context.rc, id, password, visitorOf(request), undefined);
    const secure = new URL(request.url).protocol === "https:" ? "; Secure" : "";
    const headers = cookie ? { "Set-Cookie": `${unlockCookieName(id)}=${cookie}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}` } : undefined;
    return redirect(`/sl/${id}`, { headers });
  } catch (error) {
    if (error instanceof AppError) return { error: error.message };
    throw error;
  }
}
