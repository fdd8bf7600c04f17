import { fromBase64, timingSafeEqual, toBase64 } from "./crypto";

/** Production Workers reject PBKDF2 above 100,000 iterations per call; never raise it past that. */
export const PBKDF2_ITERATIONS = 100_000;
const ALGORITHM = "pbkdf2-sha256";
const HASH_BYTES = 32;

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BYTES * 8);
  return new Uint8Array(bits);
}

/**
 * Hashes a password as `pbkdf2-sha256$<iterations>$<salt>$<hash>` (base64) with a random 16-byte salt.
 * @example await hashPassword("s3cret") // "pbkdf2-sha256$100000$…$…"
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, PBKDF2_ITERATIONS);
  return `${ALGORITHM}$${PBKDF2_ITERATIONS}$${toBase64(salt)}$${toBase64(hash)}`;
}

/** Checks a password against a stored hash; a malformed or missing hash never matches. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? "").split("$");
  if (parts.length !== 4 || parts[0] !== ALGORITHM) return false;
  const iterations = Number(parts[1]);
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > PBKDF2_ITERATIONS) return false;
  let salt: ReturnType<typeof fromBase64>;
  let expected: ReturnType<typeof fromBase64>;
  try {
    salt = fromBase64(parts[2]);
    expected = fromBase64(parts[3]);
  } catch {
    return false; // not base64: a corrupt hash must fail the sign-in, not turn it into a 500
  }
  const actual = await derive(password, salt, iterations);
  return timingSafeEqual(actual, expected);
}

/**
 * A hash of a random password, verified against when the login is unknown so that unknown users and wrong
 * passwords take the same time.
 */
let decoyHash: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword(crypto.randomUUID());
  return decoyHash;
}
