import { describe, expect, it } from "vitest";
import { paintWatermark } from "../../workers/services/shop/watermark";

/** A seeded noisy picture: every channel of every pixel different, as in a photograph. */
function noisyPicture(width: number, height: number): Uint8ClampedArray {
  const data = new Uint8ClampedArray(width * height * 4);
  let seed = 12345;
  for (let i = 0; i < data.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    data[i] = i % 4 === 3 ? 255 : (seed >>> 16) & 0xff;
  }
  return data;
}

describe("the catalogue watermark cannot be undone", () => {
  it("inverting the stripe and frame arithmetic does not give the picture back", () => {
    const width = 240;
    const height = 160;
    const original = noisyPicture(width, height);
    const marked = original.slice();
    paintWatermark({ data: marked, width, height });
    // The attacker knows the code: stripes pulled 42 % towards white, the frame darkened to 35 %. Undo both.
    let changed = 0;
    let error = 0;
    for (let i = 0; i < marked.length; i++) {
      if (i % 4 === 3 || marked[i] === original[i]) continue;
      changed++;
      const lighter = marked[i] > original[i];
      const guess = lighter ? (marked[i] - 255 * 0.42) / 0.58 : marked[i] / 0.35;
      error += Math.abs(Math.min(255, Math.max(0, Math.round(guess))) - original[i]);
    }
    expect(changed).toBeGreaterThan(width * height * 0.1);
    // The marked pixels' colour and detail are gone, not merely scaled: the best inverse misses by tens of levels.
    expect(error / changed).toBeGreaterThan(20);
  });

  it("marked pixels carry no colour: the three channels of a stripe pixel are equal", () => {
    const width = 120;
    const height = 120;
    const data = noisyPicture(width, height);
    const before = data.slice();
    paintWatermark({ data, width, height });
    let grey = 0;
    let marked = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i] === before[i] && data[i + 1] === before[i + 1] && data[i + 2] === before[i + 2]) continue;
      marked++;
      if (data[i] === data[i + 1] && data[i + 1] === data[i + 2]) grey++;
    }
    expect(marked).toBeGreaterThan(0);
    expect(grey).toBe(marked);
  });
});
