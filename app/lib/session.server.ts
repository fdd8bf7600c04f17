import { type AppLoadContext, redirect } from "@remix-run/cloudflare";
import { actorFromRefreshCookie, refreshCookieName } from "../../workers/services/access";
import type { Actor } from "../../workers/services/access";
import { guardRedirect, loginRedirect } from "./guard";

function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

/**
 * The actor of each page request, keyed by its request context: the root loader (the guard) and the route's own
 * loader run for the same request and share one session lookup instead of two.
 */
const actorOfRequest = new WeakMap<object, Promise<Actor | null>>();

/** The signed-in user of a page request, from the session cookie; null when signed out. */
export function getActor(request: Request, context: AppLoadContext): Promise<Actor | null> {
  const known = actorOfRequest.get(context.rc);
  if (known) return known;
  const named =
    ENTITY_PAGE.exec(pageUrl(request).pathname)
      ?.slice(1)
      .filter((id) => id !== undefined) ?? [];
  const actor = actorFromRefreshCookie(context.rc, readCookie(request, refreshCookieName(request.url)), named).then((found) => {
    // the page's Server-Timing carries the database detail for administrators only
    context.rc.viewerIsAdmin = found?.isAdmin === true;
    return found;
  });
  actorOfRequest.set(context.rc, actor);
  return actor;
}

/** A folder's page or a file's viewer: the ids it names, which its loader reads where their library lives. */
const ENTITY_PAGE = /^\/mam\/([0-9a-f]{32})(?:\/asset\/([0-9a-f]{32}))?\/?$/;

/** The page URL a loader serves (single-fetch data requests arrive as `/path.data?_routes=…`). */
function pageUrl(request: Request): URL {
  const url = new URL(request.url);
  url.pathname = url.pathname.replace(/\.data$/, "").replace(/^\/_root$/, "/");
  url.searchParams.delete("_routes");
  return url;
}

/** Applies the navigation guard to a page request; throws the redirect it decides on. */
export async function applyGuard(request: Request, context: AppLoadContext): Promise<Actor | null> {
  const actor = await getActor(request, context);
  const url = pageUrl(request);
  const target = guardRedirect({ pathname: url.pathname, search: url.search, user: actor });
  if (target) throw redirect(target);
  return actor;
}

/** For loaders that need the user: the actor, or a redirect to the login screen that comes back here. */
export async function requireActor(request: Request, context: AppLoadContext): Promise<Actor> {
  const actor = await getActor(request, context);
  if (!actor) {
    const url = pageUrl(request);
    throw redirect(loginRedirect(url.pathname, url.search));
  }
  return actor;
}
