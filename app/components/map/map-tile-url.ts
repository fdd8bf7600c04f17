import { useRouteLoaderData } from "@remix-run/react";
import type { loader as rootLoader } from "../../root";

/**
 * The tile server an administrator configured (MAP_TILE_URL, e.g. `https://tile.example.org/{z}/{x}/{y}.png`), or
 * null for the offline base layer of country outlines. The page's CSP admits that server's images.
 */
export function useMapTileUrl(): string | null {
  return useRouteLoaderData<typeof rootLoader>("root")?.mapTileUrl ?? null;
}
