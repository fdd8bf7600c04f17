import { inflateSync } from "fflate";
import { CARD_FONTS, type CardFontName, type PackedFont } from "./card-font.generated";

export type { CardFontName };

/** One glyph: advance in pixels, the coverage box relative to the pen on the baseline, 8-bit coverage. */
export interface Glyph {
  advance: number;
  x: number;
  y: number;
  w: number;
  h: number;
  /** offset of its coverage in the font's `coverage` */
  offset: number;
}

export interface CardFont {
  size: number;
  ascent: number;
  lineHeight: number;
  glyphs: Map<number, Glyph>;
  /** inflated on first draw: measuring (the layout) never needs it */
  coverage: () => Uint8Array;
}

const cache = new Map<CardFontName, CardFont>();

/** A font of the text cards, unpacked once per isolate. */
export function cardFont(name: CardFontName): CardFont {
  const known = cache.get(name);
  if (known) return known;
  const packed: PackedFont = CARD_FONTS[name];
  const glyphs = new Map<number, Glyph>();
  let offset = 0;
  for (let i = 0; i < packed.glyphs.length; i += 6) {
    const [code, advance16, x, y, w, h] = packed.glyphs.slice(i, i + 6);
    glyphs.set(code, { advance: advance16 / 16, x, y, w, h, offset });
    offset += w * h;
  }
  let coverage: Uint8Array | null = null;
  const font: CardFont = {
    size: packed.size,
    ascent: packed.ascent,
    lineHeight: packed.lineHeight,
    glyphs,
    coverage: () => (coverage ??= inflateSync(Uint8Array.from(atob(packed.coverage), (c) => c.charCodeAt(0)))),
  };
  cache.set(name, font);
  return font;
}

const REPLACEMENT = "?".codePointAt(0)!;

/** The glyph drawn for a character: its own, else «?» (the fonts hold Latin, Cyrillic, digits and punctuation). */
export function glyphOf(font: CardFont, code: number): Glyph {
  return font.glyphs.get(code) ?? font.glyphs.get(REPLACEMENT)!;
}

/** Width of a line of text in pixels. */
export function measureText(font: CardFont, text: string): number {
  let width = 0;
  for (const ch of text) width += glyphOf(font, ch.codePointAt(0)!).advance;
  return width;
}
