import type { Pixels } from "../imaging";

/** Stripe period and width of the watermark, as fractions of the image's shorter side. */
const PERIOD = 0.16;
const WIDTH = 0.035;
/** How strongly a stripe pixel is pulled towards white (0 nothing, 1 white). */
const STRENGTH = 0.42;

/**
 * Paints the shop's watermark onto pixels in place: diagonal light stripes across the whole image and a darker
 * frame, strong enough that the catalogue preview is useless as a stand-in for the bought file, light enough that
 * the picture stays recognisable. Pure pixel arithmetic, so it runs in the Worker with the codecs processing uses.
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
      if (onFrame) {
        data[i] = data[i] * 0.35;
        data[i + 1] = data[i + 1] * 0.35;
        data[i + 2] = data[i + 2] * 0.35;
      } else if (onStripe) {
        data[i] = data[i] + (255 - data[i]) * STRENGTH;
        data[i + 1] = data[i + 1] + (255 - data[i + 1]) * STRENGTH;
        data[i + 2] = data[i + 2] + (255 - data[i + 2]) * STRENGTH;
      }
    }
  }
  return image;
}
