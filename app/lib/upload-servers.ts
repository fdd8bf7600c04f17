import { apiRequest, ULDL_SERVER_KEY } from "./api-client";

/** The upload/download server choice is repeated this often while signed in (SPEC §9). */
export const ULDL_UPDATE_INTERVAL_MS = 10 * 60_000;
const PING_TIMEOUT_MS = 5_000;

async function ping(url: string): Promise<number | null> {
  const started = performance.now();
  try {
    const response = await fetch(`${url.replace(/\/$/, "")}/ping`, { cache: "no-store", signal: AbortSignal.timeout(PING_TIMEOUT_MS) });
    return response.ok ? Math.round(performance.now() - started) : null;
  } catch {
    return null;
  }
}

/** Pings every listed server, reports the pings and stores the chosen id for `prefer-uldl-server`. */
export async function chooseUploadServer(): Promise<string> {
  const servers = await apiRequest<{ id: string; url: string }[]>("/api/uldl-list", { toast: false });
  const pings = await Promise.all(servers.map(async (s) => ({ id: s.id, ping: await ping(s.url) })));
  const chosen = await apiRequest<string>("/api/uldl-status", { method: "POST", body: pings, toast: false });
  localStorage.setItem(ULDL_SERVER_KEY, chosen);
  return chosen;
}
