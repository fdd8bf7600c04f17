import { describe, expect, it } from "vitest";
import {
  DEFAULT_PART_BYTES,
  MAX_PARTS,
  MAX_PART_BYTES,
  partSizeFor,
  s3OpOf,
  s3SignedObject,
} from "../../workers/services/storage/multipart-plan";

const MiB = 1024 * 1024;
const q = (s: string) => new URLSearchParams(s);

describe("partSizeFor", () => {
  it("uses 16 MiB parts until 10,000 of them are not enough, then whole MiB above that, never above a Worker request", () => {
    expect(partSizeFor(1)).toBe(DEFAULT_PART_BYTES);
    expect(partSizeFor(1024 ** 3)).toBe(16 * MiB);
    expect(partSizeFor(MAX_PARTS * 16 * MiB)).toBe(16 * MiB);
    expect(partSizeFor(MAX_PARTS * 16 * MiB + 1)).toBe(17 * MiB);
    expect(partSizeFor(50 * 1024 ** 3)).toBe(16 * MiB);
    expect(partSizeFor(500 * 1024 ** 3)).toBe(52 * MiB);
    expect(partSizeFor(MAX_PARTS * MAX_PART_BYTES)).toBe(MAX_PART_BYTES);
    expect(partSizeFor(MAX_PARTS * MAX_PART_BYTES + 1)).toBeNull();
    for (const size of [1, 95 * MiB + 1, 3 * 1024 ** 3, 900 * 1024 ** 3]) {
      const part = partSizeFor(size)!;
      expect(Math.ceil(size / part)).toBeLessThanOrEqual(MAX_PARTS);
      expect(part % MiB).toBe(0);
    }
  });
});

describe("s3OpOf", () => {
  it("recognises the calls Uppy's S3 client makes", () => {
    expect(s3OpOf("POST", q("uploads&u=1"))).toBe("create");
    expect(s3OpOf("PUT", q("partNumber=2&uploadId=x"))).toBe("part");
    expect(s3OpOf("GET", q("uploadId=x"))).toBe("list");
    expect(s3OpOf("POST", q("uploadId=x"))).toBe("complete");
    expect(s3OpOf("DELETE", q("uploadId=x"))).toBe("abort");
    expect(s3OpOf("PUT", q("u=1&exp=2&sig=3"))).toBe("put");
  });

  it("answers null for anything else", () => {
    expect(s3OpOf("POST", q("uploads&uploadId=x"))).toBeNull();
    expect(s3OpOf("PUT", q("partNumber=2"))).toBeNull();
    expect(s3OpOf("PUT", q("uploadId=x"))).toBeNull();
    expect(s3OpOf("GET", q(""))).toBeNull();
    expect(s3OpOf("DELETE", q(""))).toBeNull();
    expect(s3OpOf("PATCH", q("uploadId=x"))).toBeNull();
    expect(s3OpOf("POST", q(""))).toBeNull();
  });
});

describe("s3SignedObject", () => {
  it("binds variant, upload id and part number into one signed object", () => {
    expect(s3SignedObject("v")).toBe("v::");
    expect(s3SignedObject("v", "u", 3)).toBe("v:u:3");
    expect(
      new Set([s3SignedObject("v", "u", 3), s3SignedObject("v", "u", 4), s3SignedObject("v", "w", 3), s3SignedObject("w", "u", 3)]).size,
    ).toBe(4);
  });
});
