import { describe, it } from "vitest";
import { makePng, quarterPixel } from "../fixtures/png-maker";
import { expectBigImagePreviews } from "./big-image-previews";

/** PNGs past the whole-image limit (12 MP): decoded by rows into a downscaled buffer in the Worker. */

describe("previews of big PNGs", () => {
  it("a 24 MP PNG (6000 × 4000) uploaded through the API gets thumb and medium", async () => {
    const png = makePng(6000, 4000, quarterPixel(6000, 4000));
    await expectBigImagePreviews({ name: "скан-24-Мп.png", mime: "image/png", bytes: png }, "PNG 6000×4000 по строкам → 1500×1000");
  }, 180_000);
});
