import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { S3Error } from "../../workers/lib/s3-xml";
import { declaredChecksums } from "../../workers/services/storage/upload-checksum";

// The syntax of the checksum headers an upload may carry (the digesting itself runs in workerd:
// tests/integration/upload-faults.test.ts).

const md5 = createHash("md5").update("abc").digest("base64");
const sha = createHash("sha256").update("abc").digest("base64");

function refusal(headers: Parameters<typeof declaredChecksums>[0]): S3Error {
  try {
    declaredChecksums(headers);
  } catch (error) {
    if (error instanceof S3Error) return error;
    throw error;
  }
  throw new Error("accepted");
}

describe("declaredChecksums", () => {
  it("answers nothing without headers, and each header sent with its digest bytes", () => {
    expect(declaredChecksums({})).toEqual([]);
    const both = declaredChecksums({ contentMd5: md5, checksumSha256: ` ${sha} ` });
    expect(both.map((d) => [d.algorithm, d.header, Buffer.from(d.expected).toString("base64")])).toEqual([
      ["MD5", "Content-MD5", md5],
      ["SHA-256", "x-amz-checksum-sha256", sha],
    ]);
  });

  it("refuses a value that is not base64 or not a digest of the algorithm's length (400 InvalidDigest)", () => {
    for (const headers of [
      { contentMd5: "" },
      { contentMd5: "not base64!" },
      { contentMd5: sha }, // 32 bytes where MD5 has 16
      { checksumSha256: md5 }, // 16 bytes where SHA-256 has 32
      { checksumSha256: sha.slice(0, -1) }, // padding cut: not a multiple of 4
      { contentMd5: createHash("md5").update("abc").digest("hex") },
    ]) {
      const error = refusal(headers);
      expect(error.s3Code).toBe("InvalidDigest");
      expect(error.status).toBe(400);
      expect(error.message).toBe(ru.s3.checksumMalformed(headers.contentMd5 !== undefined ? "Content-MD5" : "x-amz-checksum-sha256"));
    }
  });
});
