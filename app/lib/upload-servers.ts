import { apiRequest, ULDL_SERVER_KEY } from "./api-client";

/** The upload/download server choice is repeated this often while signed in (SPEC §9). */
export const ULDL_UPDATE_INTERVAL_MS = 10 * 60_000;
const PING_TIMEOUT_MS = 5_000;

async function ping(url: string, signal?: AbortSignal): Promise<number | null> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(PING_TIMEOUT_MS);
  try {
    const response = await fetch(`${url.replace(/\/$/, "")}/ping`, {
      cache: "no-store",
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    // Read the (tiny) body: an unread one keeps the request open in the browser until it is collected.
    await response.text();
    return response.ok ? Math.round(performance.now() - started) : null;
  } catch {
    return null;
  }
}

/** Pings every listed server, reports the pings and stores the chosen id for `prefer-uldl-server`. */
export async function chooseUploadServer(signal?: AbortSignal): Promise<string> {
  const servers = await apiRequest<{ id: string; url: string }[]>("/api/uldl-list", { toast: false, signal });
  const pings = await Promise.all(servers.map(async (s) => ({ id: s.id, ping: await ping(s.url, signal) })));
  const chosen = await apiRequest<string>("/api/uldl-status", { method: "POST", body: pings, toast: false, signal });
  localStorage.setItem(ULDL_SERVER_KEY, chosen);
  return chosen;
}
