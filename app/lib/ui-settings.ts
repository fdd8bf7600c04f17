import { apiRequest } from "./api-client";

/**
 * View settings (view mode, sort, panel states) kept in the user's `ui_settings` on the server (SPEC §7 Users), so
 * they follow the person across browsers and devices. localStorage is the fast local copy the first paint reads;
 * the server's document wins once it arrives, except for keys changed on this page in the meantime.
 */

type Listener = (key: string, value: string) => void;

const listeners = new Set<Listener>();
/** keys set on this page since the document was requested: the server's older value must not undo them */
const changedHere = new Set<string>();
let loading: Promise<void> | null = null;
let pending: Record<string, string> = {};
let timer: ReturnType<typeof setTimeout> | null = null;

/** Quiet time before changes are sent: a burst of clicks becomes one PATCH. */
const SAVE_DELAY_MS = 300;

function apply(key: string, value: string) {
  localStorage.setItem(key, value);
  for (const listener of listeners) listener(key, value);
}

/** Fetches the server's document once per page and applies its string values. */
export function loadUiSettings(): Promise<void> {
  loading ??= apiRequest<Record<string, unknown>>("/api/user/ui_settings", { toast: false })
    .then((doc) => {
      for (const [key, value] of Object.entries(doc)) {
        if (typeof value === "string" && !changedHere.has(key) && localStorage.getItem(key) !== value) apply(key, value);
      }
    })
    .catch(() => {
      // Offline or signed out: the local copy stays in force; the next page load tries again.
    });
  return loading;
}

/** Calls `listener` whenever a setting changes (from the server or another component); answers the unsubscribe. */
export function onUiSetting(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function flush() {
  if (timer) clearTimeout(timer);
  timer = null;
  const body = pending;
  pending = {};
  if (Object.keys(body).length === 0) return;
  // keepalive: a change made just before leaving the page still reaches the server.
  void apiRequest("/api/user/ui_settings", { method: "PATCH", body, toast: false, keepalive: true }).catch(() => {
    // Not saved on the server: this browser keeps it locally, and the next change sends it again.
  });
}

/** Sets a view setting here and, shortly after, in the user's server-side document. */
export function saveUiSetting(key: string, value: string) {
  changedHere.add(key);
  apply(key, value);
  pending[key] = value;
  if (timer) clearTimeout(timer);
  else window.addEventListener("pagehide", flush, { once: true });
  timer = setTimeout(flush, SAVE_DELAY_MS);
}
