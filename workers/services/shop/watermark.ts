import type { Pixels } from "../imaging";

/** Stripe period and width of the watermark, as fractions of the image's shorter side. */
const PERIOD = 0.16;
const WIDTH = 0.035;
/** How strongly a stripe pixel is pulled towards white (0 nothing, 1 white). */
const STRENGTH = 0.42;

/** Luminance levels a marked pixel keeps (of 256): few enough that the picture under a mark cannot be recovered. */
const LEVELS = 4;

/** The pixel's luminance reduced to one of LEVELS grey values (the middle of its band): colour and detail are gone. */
function coarseGrey(r: number, g: number, b: number): number {
  const band = 256 / LEVELS;
  const luminance = (r * 77 + g * 150 + b * 29) >> 8;
  return Math.floor(luminance / band) * band + band / 2;
}

/**
 * Paints the shop's watermark onto pixels in place: diagonal light stripes across the whole image and a darker
 * frame, strong enough that the catalogue preview is useless as a stand-in for the bought file, light enough that
 * the picture stays recognisable. A marked pixel is replaced by a coarse grey of its luminance, then lightened or
 * darkened: a mark that only scaled the pixel (p + (255 − p)·k) could be divided out exactly by anyone who read this
 * code, giving the clean picture back; a replaced one cannot. Pure pixel arithmetic, so it runs in the Worker with
 * the codecs processing uses.
 */
export function paintWatermark(image: Pixels): Pixels {
  const { width, height, data } = image;
  const side = Math.min(width, height);
  const period = Math.max(8, Math.round(side * PERIOD));
  const stripe = Math.max(2, Math.round(side * WIDTH));
  const frame = Math.max(2, Math.round(side * 0.02));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const onStripe = (x + y) % period < stripe || (x - y + height * period) % (period * 2) < Math.max(1, stripe >> 1);
      const onFrame = x < frame || y < frame || x >= width - frame || y >= height - frame;
      if (!onFrame && !onStripe) continue;
      const grey = coarseGrey(data[i], data[i + 1], data[i + 2]);
      const value = onFrame ? grey * 0.35 : grey + (255 - grey) * STRENGTH;
      data[i] = value;
      data[i + 1] = value;
      data[i + 2] = value;
    }
  }
  return image;
}
