import { describe, expect, it } from "vitest";
import { decodeImage, encodeJpeg, fitInside, resizePixels } from "../../workers/services/imaging/image-codec";
import { imageInfo } from "../../workers/services/media/image-info";
import { fixture } from "./processing-fixtures";

describe("image codec in workerd", () => {
  it("decodes the JPEG fixture, resizes it and encodes a JPEG of the new size", async () => {
    const pixels = await decodeImage("image/jpeg", fixture("photo"));
    expect([pixels.width, pixels.height]).toEqual([1600, 1200]);
    const box = fitInside(pixels.width, pixels.height, { width: 320, height: 320 });
    expect(box).toEqual({ width: 320, height: 240 });
    const small = await resizePixels(pixels, box.width, box.height);
    const jpeg = await encodeJpeg(small, 80);
    expect(imageInfo(jpeg)).toEqual({ mime: "image/jpeg", width: 320, height: 240 });
  });

  it("decodes the PNG fixture with its transparency", async () => {
    const pixels = await decodeImage("image/png", fixture("png"));
    expect([pixels.width, pixels.height]).toEqual([400, 300]);
    expect(pixels.data[3]).toBe(0);
    expect(pixels.data[pixels.data.length - 1]).toBe(255);
  });

  it("refuses the corrupt JPEG with an error, and still decodes afterwards", async () => {
    await expect(decodeImage("image/jpeg", fixture("corrupt"))).rejects.toThrow();
    expect((await decodeImage("image/jpeg", fixture("tiny"))).width).toBe(200);
  });
});
