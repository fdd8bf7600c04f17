import { fromBase64 } from "../../lib/crypto";
import type { ProofKeyPair } from "./discovery";

/**
 * WOPI proof keys: the editor signs every request it sends to the host with its private RSA key (SHA-256,
 * PKCS#1 v1.5) over the access token, the request URL in upper case and a timestamp, each preceded by its length as a
 * 4-byte big-endian integer. The host checks the signature with the public keys from discovery; during a key rotation
 * the current or the old key, over X-WOPI-Proof or X-WOPI-ProofOld, may match.
 */

/** .NET ticks (100 ns since 0001-01-01) at the Unix epoch: X-WOPI-TimeStamp is in ticks. */
export const EPOCH_TICKS = 621_355_968_000_000_000n;
/** Requests signed longer ago than this are refused (the protocol's rule). */
export const PROOF_MAX_AGE_MS = 20 * 60 * 1000;

export interface ProofHeaders {
  proof?: string | null;
  proofOld?: string | null;
  timestamp?: string | null;
}

function lengthPrefixed(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + bytes.length);
  new DataView(out.buffer).setUint32(0, bytes.length, false);
  out.set(bytes, 4);
  return out;
}

/** The bytes the editor signs for a request. */
export function proofBytes(accessToken: string, url: string, ticks: bigint): Uint8Array<ArrayBuffer> {
  const enc = new TextEncoder();
  const time = new Uint8Array(8);
  new DataView(time.buffer).setBigInt64(0, ticks, false);
  const parts = [lengthPrefixed(enc.encode(accessToken)), lengthPrefixed(enc.encode(url.toUpperCase())), lengthPrefixed(time)];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Milliseconds since the Unix epoch → .NET ticks. */
export function ticksOf(ms: number): bigint {
  return BigInt(Math.round(ms)) * 10_000n + EPOCH_TICKS;
}

function b64url(bytes: Uint8Array): string {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  let bin = "";
  for (const b of bytes.subarray(start)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const keyCache = new Map<string, Promise<CryptoKey>>();

function importKey(modulus: string, exponent: string): Promise<CryptoKey> {
  const id = `${modulus}|${exponent}`;
  let key = keyCache.get(id);
  if (!key) {
    key = crypto.subtle.importKey(
      "jwk",
      { kty: "RSA", n: b64url(fromBase64(modulus)), e: b64url(fromBase64(exponent)), alg: "RS256", ext: true },
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
      false,
      ["verify"],
    );
    key.catch(() => keyCache.delete(id));
    keyCache.set(id, key);
  }
  return key;
}

async function verifies(key: { modulus: string; exponent: string } | null, signature: string | null | undefined, data: Uint8Array<ArrayBuffer>) {
  if (!key || !signature || signature.length > 2048) return false;
  try {
    return await crypto.subtle.verify("RSASSA-PKCS1-v1_5", await importKey(key.modulus, key.exponent), fromBase64(signature), data);
  } catch {
    return false;
  }
}

/** Why a proof failed, or "ok". */
export type ProofOutcome = "ok" | "missing" | "expired" | "invalid";

/**
 * Checks a request's proof: a timestamp no older than 20 minutes, and a signature by the current key over
 * X-WOPI-Proof or X-WOPI-ProofOld, or by the old key over X-WOPI-Proof.
 */
export async function verifyProof(keys: ProofKeyPair, accessToken: string, url: string, h: ProofHeaders, now = Date.now()): Promise<ProofOutcome> {
  if (!h.proof || !h.timestamp || !/^\d{1,20}$/.test(h.timestamp)) return "missing";
  const ticks = BigInt(h.timestamp);
  const ms = Number((ticks - EPOCH_TICKS) / 10_000n);
  // A little clock skew into the future is tolerated; the past is bounded by the protocol's 20 minutes.
  if (now - ms > PROOF_MAX_AGE_MS || ms - now > 5 * 60 * 1000) return "expired";
  const data = proofBytes(accessToken, url, ticks);
  if (await verifies(keys.current, h.proof, data)) return "ok";
  if (await verifies(keys.current, h.proofOld, data)) return "ok";
  if (await verifies(keys.old, h.proof, data)) return "ok";
  return "invalid";
}
