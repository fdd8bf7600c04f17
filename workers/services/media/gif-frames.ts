import { ru } from "../../../shared/i18n/ru";
import { MAX_ANIMATION_FRAMES } from "./extract/limits";
import { ParseLimitError } from "./extract/parse-limit";

/**
 * Frames of a GIF, counted by walking its blocks (image descriptors, extensions and their sub-blocks) in one pass;
 * past MAX_ANIMATION_FRAMES the file is refused. A truncated file answers the frames seen.
 */
export function gifFrames(b: Uint8Array): number {
  if (b.length < 13) return 0;
  let at = 13;
  if (b[10] & 0x80) at += 3 * (1 << ((b[10] & 0x07) + 1));
  const skipSubBlocks = () => {
    while (at < b.length && b[at] !== 0) at += b[at] + 1;
    at += 1;
  };
  let frames = 0;
  while (at < b.length) {
    const block = b[at];
    if (block === 0x3b) break;
    if (block === 0x21) {
      at += 2;
      skipSubBlocks();
    } else if (block === 0x2c) {
      if (++frames > MAX_ANIMATION_FRAMES) throw new ParseLimitError(ru.parse.frames(MAX_ANIMATION_FRAMES), 413);
      const packed = b[at + 9];
      at += 10;
      if (packed & 0x80) at += 3 * (1 << ((packed & 0x07) + 1));
      at += 1; // LZW minimum code size
      skipSubBlocks();
    } else break;
  }
  return frames;
}
