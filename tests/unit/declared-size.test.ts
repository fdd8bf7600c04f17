import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { declaredSize } from "../../workers/services/imaging/declared-size";
import { sniffImage } from "../../workers/services/imaging/sniff";

/** What a photo's header declares before anything decodes it (the bound checked before the Images binding). */

const file = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/${name}`, import.meta.url)));

describe("declaredSize", () => {
  it("reads JPEG SOF, PNG IHDR, WebP and AVIF ispe from the committed fixtures", () => {
    for (const [name, width, height] of [
      ["photo-1600x1200.jpg", 1600, 1200],
      ["logo-400x300.png", 400, 300],
      ["quarters-1600x1200.webp", 1600, 1200],
      ["quarters-1600x1200.avif", 1600, 1200],
    ] as const) {
      const bytes = file(name);
      expect(declaredSize(sniffImage(bytes)!, bytes.subarray(0, 65536)), name).toEqual({ width, height });
    }
  });

  it("answers null when the head does not say (cut before the frame header, or a kind it does not read)", () => {
    const jpeg = file("photo-1600x1200.jpg");
    expect(declaredSize("jpeg", jpeg.subarray(0, 20))).toBeNull();
    expect(declaredSize("avif", file("quarters-1600x1200.avif").subarray(0, 200))).toBeNull();
    expect(declaredSize("tiff", jpeg)).toBeNull();
  });

  it("takes the largest ispe (a grid's full extents, not a tile's)", () => {
    const box = (w: number, h: number) => [0, 0, 0, 20, ...Array.from("ispe", (c) => c.charCodeAt(0)), 0, 0, 0, 0, w >> 24, (w >> 16) & 255, (w >> 8) & 255, w & 255, h >> 24, (h >> 16) & 255, (h >> 8) & 255, h & 255];
    const head = new Uint8Array([...box(512, 512), ...box(20000, 15000), ...box(512, 512)]);
    expect(declaredSize("heif", head)).toEqual({ width: 20000, height: 15000 });
  });
});
