import { base64url } from "./crypto";

/**
 * Authenticated encryption of small secrets kept in D1 (external storage credentials): AES-256-GCM with a random
 * 12-byte IV per message and a key derived with HKDF-SHA-256 from the server secret, so a database dump alone
 * reveals nothing and any change to a sealed value is detected when it is opened.
 *
 * Sealed form: `v1.<iv b64url>.<ciphertext+tag b64url>`. The optional `context` (e.g. the storage id) is bound as
 * additional authenticated data, so a sealed value copied into another row does not open there.
 */

/** HKDF `info` label: a key for storage credentials is never the key of anything else derived from the secret. */
export const STORAGE_CREDS_INFO = "edge-mam storage credentials v1";

const VERSION = "v1";
const IV_BYTES = 12;
const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

/** Thrown when a sealed value is malformed, was made with another key or context, or has been changed. */
export class SecretBoxError extends Error {
  constructor(message = "sealed secret cannot be opened") {
    super(message);
    this.name = "SecretBoxError";
  }
}

function deriveKey(secret: string, info: string): Promise<CryptoKey> {
  const cacheKey = `${info}\u0000${secret}`;
  let key = keys.get(cacheKey);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"])
      .then((root) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(info) },
          root,
          { name: "AES-GCM", length: 256 },
          false,
          ["encrypt", "decrypt"],
        ),
      );
    keys.set(cacheKey, key);
  }
  return key;
}

function fromBase64url(value: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(value)) throw new SecretBoxError();
  const bin = atob(value.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (value.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * Encrypts `plaintext` under a key derived from `secret`.
 * @example const sealed = await seal(rc.config.JWT_SECRET, JSON.stringify(creds), { context: storageId })
 */
export async function seal(secret: string, plaintext: string, opts: { context?: string; info?: string } = {}): Promise<string> {
  const key = await deriveKey(secret, opts.info ?? STORAGE_CREDS_INFO);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const params: AesGcmParams = { name: "AES-GCM", iv };
  if (opts.context !== undefined) params.additionalData = encoder.encode(opts.context);
  const ciphertext = new Uint8Array(await crypto.subtle.encrypt(params, key, encoder.encode(plaintext)));
  return `${VERSION}.${base64url(iv)}.${base64url(ciphertext)}`;
}

/**
 * Decrypts a value made by `seal` with the same secret, context and info; throws SecretBoxError otherwise.
 * @example const creds = JSON.parse(await open(rc.config.JWT_SECRET, row.credsEncrypted, { context: row.id }))
 */
export async function open(secret: string, sealed: string, opts: { context?: string; info?: string } = {}): Promise<string> {
  const parts = sealed.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION) throw new SecretBoxError();
  const iv = fromBase64url(parts[1]);
  const ciphertext = fromBase64url(parts[2]);
  if (iv.length !== IV_BYTES || ciphertext.length < 16) throw new SecretBoxError();
  const key = await deriveKey(secret, opts.info ?? STORAGE_CREDS_INFO);
  const params: AesGcmParams = { name: "AES-GCM", iv };
  if (opts.context !== undefined) params.additionalData = encoder.encode(opts.context);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(await crypto.subtle.decrypt(params, key, ciphertext));
  } catch {
    throw new SecretBoxError();
  }
}
