import { isRouteErrorResponse, useRevalidator, useRouteError } from "@remix-run/react";
import { useEffect } from "react";
import { ru } from "../i18n/ru";
import { reportRenderError } from "../lib/error-tracking";
import { UnavailablePage } from "./unavailable-page";

/**
 * What a route's ErrorBoundary shows inside the app shell: a 404 thrown by a loader as «… не найдено» (with the
 * route's own wording when given), anything else as «Что-то пошло не так» with a retry — never a blank screen.
 */
export function RouteErrorPage({ notFound }: { notFound?: { title: string; hint: string } }) {
  const error = useRouteError();
  const { revalidate } = useRevalidator();
  const missing = isRouteErrorResponse(error) && (error.status === 404 || error.status === 403);
  useEffect(() => {
    // Answers the server chose (404, 403) are not faults; a thrown error, in a loader or in rendering, is reported
    // to error tracking like the root boundary does (nothing happens without a DSN).
    if (!isRouteErrorResponse(error)) reportRenderError(error);
  }, [error]);
  if (missing) {
    return <UnavailablePage title={notFound?.title ?? ru.screens.notFound} hint={notFound?.hint ?? ru.screens.notFoundHint} />;
  }
  // A crash is a bug: keep it in the console for the report, show the user a way on.
  console.error(error);
  return <UnavailablePage title={ru.screens.crashed} hint={ru.screens.crashedHint} icon="other" onRetry={revalidate} />;
}
