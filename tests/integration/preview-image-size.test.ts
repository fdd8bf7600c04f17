import { describe, expect, it } from "vitest";
import { imageInfo } from "../../workers/services/media/image-info";
import { previewMimeType } from "../../workers/services/media/preview.service";
import { gifBytes, jpegBytes, pngBytes, webpBytes } from "./catalog-fixtures";

/** The header parser is pure; it runs here next to the upload tests that depend on it. */
describe("imageInfo: type and size from header bytes", () => {
  it("reads PNG (IHDR)", () => {
    expect(imageInfo(pngBytes(320, 180))).toEqual({ mime: "image/png", width: 320, height: 180 });
    expect(imageInfo(pngBytes(70_000, 1))).toEqual({ mime: "image/png", width: 70_000, height: 1 });
  });

  it("reads GIF87a and GIF89a", () => {
    expect(imageInfo(gifBytes(640, 480))).toEqual({ mime: "image/gif", width: 640, height: 480 });
    const gif87 = gifBytes(2, 3);
    gif87[4] = 0x37;
    expect(imageInfo(gif87)).toEqual({ mime: "image/gif", width: 2, height: 3 });
  });

  it("reads the three WebP flavours", () => {
    expect(imageInfo(webpBytes(1280, 720, "VP8 "))).toEqual({ mime: "image/webp", width: 1280, height: 720 });
    expect(imageInfo(webpBytes(1, 16384, "VP8L"))).toEqual({ mime: "image/webp", width: 1, height: 16384 });
    expect(imageInfo(webpBytes(20_000, 3, "VP8X"))).toEqual({ mime: "image/webp", width: 20_000, height: 3 });
  });

  it("reads JPEG frame headers: baseline, progressive, after other segments and fill bytes", () => {
    expect(imageInfo(jpegBytes(1920, 1080))).toEqual({ mime: "image/jpeg", width: 1920, height: 1080 });
    expect(imageInfo(jpegBytes(300, 200, 0xc2))).toEqual({ mime: "image/jpeg", width: 300, height: 200 });
    // A DHT segment (0xc4, not a frame) and fill bytes before the frame header.
    const base = jpegBytes(33, 44);
    const dht = [0xff, 0xc4, 0x00, 0x05, 0x00, 0x01, 0x02];
    const withExtras = new Uint8Array([...base.slice(0, 20), ...dht, 0xff, 0xff, ...base.slice(20)]);
    expect(imageInfo(withExtras)).toEqual({ mime: "image/jpeg", width: 33, height: 44 });
  });

  it("answers null for other formats, truncated headers and zero sizes", () => {
    const cases: Uint8Array[] = [
      new Uint8Array(0),
      new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>"),
      new TextEncoder().encode("GIF8"),
      pngBytes(10, 10).slice(0, 20),
      pngBytes(0, 10),
      gifBytes(0, 0),
      jpegBytes(10, 10).slice(0, 24),
      jpegBytes(0, 10),
      new Uint8Array([0xff, 0xd8, 0xff, 0xd9]),
      new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 0, 0, 0, 0, 0, 0]),
      webpBytes(10, 10).slice(0, 25),
      new Uint8Array([...new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8Z"), ...new Uint8Array(20)]),
      new Uint8Array([0x42, 0x4d, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    ];
    for (const bytes of cases) expect(imageInfo(bytes)).toBeNull();
  });

  it("never throws on random bytes", () => {
    for (let i = 0; i < 500; i++) {
      const bytes = crypto.getRandomValues(new Uint8Array(1 + (i % 64)));
      if (i % 4 === 0 && bytes.length >= 3) bytes.set([0xff, 0xd8, 0xff]);
      if (i % 4 === 1 && bytes.length >= 12) bytes.set(new TextEncoder().encode("RIFF\0\0\0\0WEBP"));
      expect(() => imageInfo(bytes)).not.toThrow();
    }
  });
});

describe("previewMimeType", () => {
  it("accepts the four image types, case and parameters aside", () => {
    expect(previewMimeType("image/PNG; charset=binary")).toBe("image/png");
    expect(previewMimeType("image/jpeg")).toBe("image/jpeg");
    expect(previewMimeType("image/webp")).toBe("image/webp");
    expect(previewMimeType("image/gif")).toBe("image/gif");
  });

  it.each([undefined, "", "image/svg+xml", "image/jpg", "text/html", "application/octet-stream"])("refuses %j", (type) => {
    expect(previewMimeType(type)).toBeNull();
  });
});
