import { base64url, timingSafeEqual } from "./crypto";

/**
 * What a signed link may do; part of the signature, so a link for one purpose cannot be used for another. The `s3-*`
 * purposes are the calls of the S3-compatible upload endpoints (one per operation; their `id` also binds the upload id
 * and part number, see multipart-signing.ts).
 */
export type SignedPurpose = "upload" | "play" | "download" | "zip" | "s3-create" | "s3-part" | "s3-list" | "s3-complete" | "s3-abort" | "s3-put" | "sl-media" | "shop-preview";

export interface SignedClaims {
  purpose: SignedPurpose;
  /** the object the link is for (a variant id) */
  id: string;
  /** the user the link was issued to */
  userId: string;
  /** expiry, epoch seconds */
  exp: number;
}

const keys = new Map<string, Promise<CryptoKey>>();

/** HMAC key for signed links, derived from the JWT secret with a distinct label (never the same key as tokens). */
function signingKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
      .then(async (root) => {
        const derived = await crypto.subtle.sign("HMAC", root, new TextEncoder().encode("edge-mam signed links v1"));
        return crypto.subtle.importKey("raw", derived, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      });
    keys.set(secret, key);
  }
  return key;
}

async function mac(secret: string, c: SignedClaims): Promise<Uint8Array> {
  const message = `${c.purpose}\n${c.id}\n${c.userId}\n${c.exp}`;
  return new Uint8Array(await crypto.subtle.sign("HMAC", await signingKey(secret), new TextEncoder().encode(message)));
}

/**
 * Query parameters (`u`, `exp`, `sig`) that authorise `purpose` on `id` for `userId` until `exp`.
 * @example `${origin}/api/asset/content/stream/${variantId}?${new URLSearchParams(await signLink(secret, claims))}`
 */
export async function signLink(secret: string, claims: SignedClaims): Promise<Record<"u" | "exp" | "sig", string>> {
  return { u: claims.userId, exp: String(claims.exp), sig: base64url(await mac(secret, claims)) };
}

/** Checks a signed link's parameters for `purpose` on `id`; returns the user id, or null when invalid or expired. */
export async function verifyLink(
  secret: string,
  purpose: SignedPurpose,
  id: string,
  params: { u?: string; exp?: string; sig?: string },
  now = Date.now(),
): Promise<string | null> {
  const exp = Number(params.exp);
  if (!params.u || !params.sig || !Number.isInteger(exp) || exp * 1000 <= now) return null;
  const expected = base64url(await mac(secret, { purpose, id, userId: params.u, exp }));
  const enc = new TextEncoder();
  return timingSafeEqual(enc.encode(expected), enc.encode(params.sig)) ? params.u : null;
}
