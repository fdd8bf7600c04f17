import { base64url, timingSafeEqual } from "./crypto";

/** What a WOPI access token lets the editor do with its one file. */
export type WopiRight = "view" | "edit";
/**
 * Who holds the token: an office editor (its requests must carry a valid proof when the editor publishes proof
 * keys), or the browser's own viewer and text editor (which cannot sign; the token itself is its credential).
 */
export type WopiClient = "editor" | "browser";
/**
 * The credential the token was minted under, checked again on every request: a sign-in session (its family id) or a
 * robot's API token (its id). Ending that credential (logout, new password, disabled account, revoked token) ends
 * every WOPI token minted under it.
 */
export type WopiVia = "session" | "robot";

export interface WopiTokenClaims {
  /** the user the token was issued to */
  userId: string;
  /** the one asset it opens */
  assetId: string;
  right: WopiRight;
  client: WopiClient;
  /** expiry, epoch milliseconds (WOPI's access_token_ttl is the same number) */
  exp: number;
  via: WopiVia;
  /** the session family (via "session") or the robot token id (via "robot") */
  sid: string;
}

const keys = new Map<string, Promise<CryptoKey>>();

/**
 * HMAC key for WOPI tokens, derived from the JWT secret with its own label: a WOPI token can never pass as the app's
 * bearer or a signed link (different keys, different shapes), and the app's bearer never reaches an editor.
 */
function tokenKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
      .then(async (root) => {
        const derived = await crypto.subtle.sign("HMAC", root, new TextEncoder().encode("edge-mam wopi tokens v1"));
        return crypto.subtle.importKey("raw", derived, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      });
    keys.set(secret, key);
  }
  return key;
}

const PAYLOAD = /^[A-Za-z0-9_-]{1,400}$/;
const ID = /^[0-9a-f]{32}$/;

function fromBase64url(value: string): string {
  const b64 = value.replace(/-/g, "+").replace(/_/g, "/");
  return atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
}

async function mac(secret: string, payload: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.sign("HMAC", await tokenKey(secret), new TextEncoder().encode(payload))));
}

/**
 * A WOPI access token: `payload.signature`, both base64url; the payload names user, asset, right, expiry and the
 * credential it was minted under.
 * @example const token = await signWopiToken(secret, { userId, assetId, right: "edit", client: "editor", exp: Date.now() + 3600_000, via: "session", sid })
 */
export async function signWopiToken(secret: string, claims: WopiTokenClaims): Promise<string> {
  const payload = base64url(new TextEncoder().encode(JSON.stringify({ u: claims.userId, a: claims.assetId, r: claims.right, k: claims.client, exp: claims.exp, v: claims.via, s: claims.sid })));
  return `${payload}.${await mac(secret, payload)}`;
}

/** The claims of a valid, unexpired token; null for anything forged, malformed or expired. */
export async function verifyWopiToken(secret: string, token: string, now = Date.now()): Promise<WopiTokenClaims | null> {
  if (token.length > 600) return null;
  const [payload, sig, ...rest] = token.split(".");
  if (rest.length > 0 || !payload || !sig || !PAYLOAD.test(payload)) return null;
  const enc = new TextEncoder();
  if (!timingSafeEqual(enc.encode(await mac(secret, payload)), enc.encode(sig))) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64url(payload));
  } catch {
    return null;
  }
  const p = parsed as { u?: unknown; a?: unknown; r?: unknown; k?: unknown; exp?: unknown; v?: unknown; s?: unknown };
  if (typeof p.u !== "string" || typeof p.a !== "string" || !ID.test(p.a) || (p.r !== "view" && p.r !== "edit")) return null;
  if (p.k !== "editor" && p.k !== "browser") return null;
  if (typeof p.exp !== "number" || !Number.isFinite(p.exp) || p.exp <= now) return null;
  // Tokens minted before they named their credential have none to check: refused like forged ones.
  if ((p.v !== "session" && p.v !== "robot") || typeof p.s !== "string" || !ID.test(p.s)) return null;
  return { userId: p.u, assetId: p.a, right: p.r, client: p.k, exp: p.exp, via: p.v, sid: p.s };
}
