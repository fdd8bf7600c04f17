import { Outlet } from "@remix-run/react";
import { AppShell } from "../components/app-shell";
import { RouteErrorPage } from "../components/route-error-page";
import { useCurrentUser } from "../lib/use-current-user";

/** Layout of every signed-in screen; the root guard has already sent signed-out visitors to /login. */
export default function AppLayout() {
  const user = useCurrentUser();
  if (!user) return null;
  return (
    <AppShell user={user}>
      <Outlet />
    </AppShell>
  );
}

/** Any signed-in screen that throws keeps the shell (navigation stays usable) and offers the way back. */
export function ErrorBoundary() {
  const user = useCurrentUser();
  return user ? (
    <AppShell user={user}>
      <RouteErrorPage />
    </AppShell>
  ) : (
    <RouteErrorPage />
  );
}
