import { useRouteLoaderData } from "@remix-run/react";
import type { loader as rootLoader } from "../root";

/** The signed-in user from the root loader (null on public screens). */
export function useCurrentUser() {
  return useRouteLoaderData<typeof rootLoader>("root")?.user ?? null;
}
