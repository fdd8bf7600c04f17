import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import {
  Link,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  isRouteErrorResponse,
  useRouteError,
  useRouteLoaderData,
  type ClientLoaderFunctionArgs,
  type ShouldRevalidateFunction,
} from "@remix-run/react";
import { useEffect } from "react";
import { NewVersionModal } from "./components/new-version-modal";
import { Toaster } from "./components/toaster";
import { ru } from "./i18n/ru";
import { ensureFreshAccessToken } from "./lib/api-client";
import { reportRenderError, startErrorTracking, type ErrorTrackingConfig } from "./lib/error-tracking";
import { useNonce } from "./lib/nonce";
import { applyGuard } from "./lib/session.server";
import { readTokens } from "./lib/tokens";
import stylesHref from "./styles/app.css?url";
import { themeCss } from "./theme";
import { BUILD_INFO } from "../shared/generated/build-info";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesHref },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export const meta: MetaFunction = () => [{ title: ru.app.name }];

/** The navigation guard runs here, for every route, on every navigation (see shouldRevalidate). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const actor = await applyGuard(request, context);
  const dsn = context.rc.config.SENTRY_DSN;
  // The DSN is public by design (it only lets a client send events); without one the browser loads no SDK at all.
  const errorTracking: ErrorTrackingConfig | null = dsn ? { dsn, release: BUILD_INFO.version } : null;
  const diskHelperUrl = context.rc.config.DISK_HELPER_URL;
  // the map's tile server, when an administrator set one (the offline outlines otherwise)
  const mapTileUrl = context.rc.config.MAP_TILE_URL ?? null;
  return { user: actor ? { id: actor.id, name: actor.name, isAdmin: actor.isAdmin } : null, errorTracking, diskHelperUrl, mapTileUrl };
}

/** Before each client navigation: refresh the access token when it is expired or about to expire. */
export async function clientLoader({ serverLoader }: ClientLoaderFunctionArgs) {
  if (readTokens().bearer) await ensureFreshAccessToken();
  return serverLoader<typeof loader>();
}

/** Access state is refreshed first on every navigation (SPEC §2 guard rule 1). */
export const shouldRevalidate: ShouldRevalidateFunction = () => true;

export function Layout({ children }: { children: React.ReactNode }) {
  const nonce = useNonce();
  const errorTracking = useRouteLoaderData<typeof loader>("root")?.errorTracking ?? null;
  return (
    <html lang="ru">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <style dangerouslySetInnerHTML={{ __html: themeCss() }} />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <Toaster />
        <NewVersionModal />
        <HydrationMarker />
        <ErrorTracking config={errorTracking} />
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

/** Marks the document as interactive once React has hydrated: end-to-end tests wait for it before clicking. */
function HydrationMarker() {
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return null;
}

/** Starts browser error tracking once the page is interactive, when the server configured it. */
function ErrorTracking({ config }: { config: ErrorTrackingConfig | null }) {
  useEffect(() => {
    if (config) startErrorTracking(config);
  }, [config]);
  return null;
}

export function ErrorBoundary() {
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  if (!notFound) console.error(error);
  useEffect(() => {
    // answers the server chose (404, 403) are not faults; a thrown error, in a loader or in rendering, is
    if (!isRouteErrorResponse(error)) reportRenderError(error);
  }, [error]);
  return (
    <div className="auth-page">
      <div className="auth-card" style={{ textAlign: "center" }}>
        <h1 className="auth-title">{notFound ? ru.screens.notFound : ru.screens.crashed}</h1>
        <p className="auth-subtitle">{notFound ? ru.screens.notFoundHint : ru.errors.server}</p>
        <Link className="btn btn-primary" to="/mam">
          {ru.screens.backToFiles}
        </Link>
      </div>
    </div>
  );
}
