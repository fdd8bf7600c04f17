import { ru } from "../../../shared/i18n/ru";
import { fromBase64, timingSafeEqual } from "../../lib/crypto";
import { S3Error } from "../../lib/s3-xml";

/**
 * Checksums a client may send with upload bytes, as S3 defines them: `Content-MD5` and `x-amz-checksum-sha256`,
 * each the base64 of the digest of the body. When one is sent, the bytes that arrived are hashed on the way to
 * storage and a mismatch refuses the upload (400 BadDigest) before anything is recorded or committed: a part or a
 * file damaged between the client and the Worker is never assembled into a version. Without the headers nothing is
 * hashed here (the multipart path keeps its native, untouched stream).
 */

/** The headers as the routes read them (undefined when absent). */
export interface ChecksumHeaders {
  contentMd5?: string;
  checksumSha256?: string;
}

interface Declared {
  algorithm: "MD5" | "SHA-256";
  header: string;
  expected: Uint8Array;
}

const DIGEST_BYTES = { MD5: 16, "SHA-256": 32 } as const;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The checksums sent, checked for syntax: base64 of a digest of the algorithm's length, else 400 InvalidDigest. */
export function declaredChecksums(headers: ChecksumHeaders): Declared[] {
  const out: Declared[] = [];
  const add = (algorithm: Declared["algorithm"], header: string, raw: string | undefined) => {
    if (raw === undefined) return;
    const value = raw.trim();
    const bytes = BASE64.test(value) && value.length % 4 === 0 ? fromBase64(value) : null;
    if (!bytes || bytes.byteLength !== DIGEST_BYTES[algorithm]) throw new S3Error("InvalidDigest", ru.s3.checksumMalformed(header));
    out.push({ algorithm, header, expected: bytes });
  };
  add("MD5", "Content-MD5", headers.contentMd5);
  add("SHA-256", "x-amz-checksum-sha256", headers.checksumSha256);
  return out;
}

/** An upload body on its way to storage, and the check of what passed through it against the declared checksums. */
export interface ChecksumTap {
  body: ReadableStream<Uint8Array>;
  /** Throws 400 BadDigest when the bytes that went through differ from a declared checksum; call after the write. */
  verify(): Promise<void>;
}

/**
 * Passes `body` through unchanged while digesting it for each declared checksum (a transform, not `tee()`, so the
 * storage write's backpressure holds and memory stays flat). With no checksum declared, `body` itself comes back.
 */
export function checksumTap(body: ReadableStream<Uint8Array>, headers: ChecksumHeaders): ChecksumTap {
  const declared = declaredChecksums(headers);
  if (declared.length === 0) return { body, verify: async () => undefined };
  // workerd's crypto.DigestStream (the DOM lib's Crypto type, also in scope, does not declare it).
  const { DigestStream: Digest } = crypto as unknown as { DigestStream: typeof DigestStream };
  const digests = declared.map((d) => {
    const stream = new Digest(d.algorithm);
    return { ...d, stream, writer: stream.getWriter() };
  });
  const tapped = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        for (const d of digests) await d.writer.write(chunk);
        controller.enqueue(chunk);
      },
      async flush() {
        for (const d of digests) await d.writer.close();
      },
    }),
  );
  return {
    body: tapped,
    async verify() {
      for (const d of digests) {
        const actual = new Uint8Array(await d.stream.digest);
        if (!timingSafeEqual(actual, d.expected)) throw new S3Error("BadDigest", ru.s3.checksumMismatch(d.header));
      }
    },
  };
}
