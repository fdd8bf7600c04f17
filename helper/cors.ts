/**
 * Who may talk to the helper from a browser. The helper listens on the user's loopback interface, so any web page the
 * user opens could try to reach it: only the app's own origin gets CORS headers (and with them the answer), every
 * other Origin is refused with 403 before anything runs. Chrome's Private Network Access asks a public page for
 * permission to call a loopback address with a preflight carrying `Access-Control-Request-Private-Network: true`;
 * the helper grants it to the app's origin only. The Host header is checked too, so a DNS-rebinding page (its own
 * host name resolving to 127.0.0.1) is refused.
 */

/** What the helper does with a request before routing it. */
export type CorsDecision =
  | { kind: "refuse"; status: 403; message: string }
  | { kind: "preflight"; headers: Record<string, string> }
  | { kind: "pass"; headers: Record<string, string> };

/** Request headers a preflight may ask for: the app sends JSON bodies. */
const ALLOWED_REQUEST_HEADERS = ["content-type"];
const ALLOWED_METHODS = "GET, POST, OPTIONS";

/** The loopback host names the helper answers to (anything else is a rebinding attempt). */
export function isLoopbackHost(host: string | null, port: number): boolean {
  if (!host) return false;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host.toLowerCase());
}

/**
 * Decides a request's fate from its method and headers.
 * @example decideCors({ method: "OPTIONS", origin: "https://mam.example.com", requestPrivateNetwork: true, … }, "https://mam.example.com", 18981)
 */
export function decideCors(
  request: { method: string; host: string | null; origin: string | null; requestHeaders: string | null; requestPrivateNetwork: boolean },
  allowedOrigin: string,
  port: number,
): CorsDecision {
  if (!isLoopbackHost(request.host, port)) return { kind: "refuse", status: 403, message: `Помощник отвечает только на 127.0.0.1:${port}` };
  // No Origin: not a cross-origin browser request (the user's own tools on this computer); nothing to grant.
  if (request.origin === null) {
    if (request.method === "OPTIONS") return { kind: "refuse", status: 403, message: "Предварительный запрос без Origin" };
    return { kind: "pass", headers: {} };
  }
  if (request.origin !== allowedOrigin) return { kind: "refuse", status: 403, message: `Запросы с ${request.origin} не принимаются: помощник работает только с ${allowedOrigin}` };
  const base = { "access-control-allow-origin": allowedOrigin, vary: "Origin" };
  if (request.method !== "OPTIONS") return { kind: "pass", headers: base };
  const asked = (request.requestHeaders ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const refused = asked.filter((h) => !ALLOWED_REQUEST_HEADERS.includes(h));
  if (refused.length > 0) return { kind: "refuse", status: 403, message: `Заголовки не разрешены: ${refused.join(", ")}` };
  return {
    kind: "preflight",
    headers: {
      ...base,
      "access-control-allow-methods": ALLOWED_METHODS,
      "access-control-allow-headers": ALLOWED_REQUEST_HEADERS.join(", "),
      "access-control-max-age": "600",
      ...(request.requestPrivateNetwork ? { "access-control-allow-private-network": "true" } : {}),
    },
  };
}
