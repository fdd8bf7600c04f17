import { cardFont, glyphOf } from "./card-font";
import { CARD_SPECS, layoutCard, type CardContent, type CardOp } from "./card-layout";
import type { Pixels } from "../image-codec";

export type CardSize = keyof typeof CARD_SPECS;

const rgb = (hex: string): [number, number, number] => [
  parseInt(hex.slice(1, 3), 16),
  parseInt(hex.slice(3, 5), 16),
  parseInt(hex.slice(5, 7), 16),
];

function fillRect(px: Pixels, op: Extract<CardOp, { type: "rect" }>): void {
  const [r, g, b] = rgb(op.color);
  const x0 = Math.max(0, op.x);
  const y0 = Math.max(0, op.y);
  const x1 = Math.min(px.width, op.x + op.w);
  const y1 = Math.min(px.height, op.y + op.h);
  const radius = op.radius ?? 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      // Rounded corners: pixels outside the corner circle are left as they are.
      if (radius > 0) {
        const dx = x < op.x + radius ? op.x + radius - x - 0.5 : x > op.x + op.w - radius - 1 ? x - (op.x + op.w - radius - 1) + 0.5 : 0;
        const dy = y < op.y + radius ? op.y + radius - y - 0.5 : y > op.y + op.h - radius - 1 ? y - (op.y + op.h - radius - 1) + 0.5 : 0;
        if (dx * dx + dy * dy > radius * radius) continue;
      }
      const i = (y * px.width + x) * 4;
      px.data[i] = r;
      px.data[i + 1] = g;
      px.data[i + 2] = b;
      px.data[i + 3] = 255;
    }
  }
}

function drawText(px: Pixels, op: Extract<CardOp, { type: "text" }>): void {
  const font = cardFont(op.font);
  const coverage = font.coverage();
  const [r, g, b] = rgb(op.color);
  let pen = op.x;
  for (const ch of op.text) {
    const glyph = glyphOf(font, ch.codePointAt(0)!);
    const gx = Math.round(pen) + glyph.x;
    const gy = op.y + glyph.y;
    for (let row = 0; row < glyph.h; row++) {
      const y = gy + row;
      if (y < 0 || y >= px.height) continue;
      for (let col = 0; col < glyph.w; col++) {
        const x = gx + col;
        if (x < 0 || x >= px.width) continue;
        const a = coverage[glyph.offset + row * glyph.w + col];
        if (a === 0) continue;
        const i = (y * px.width + x) * 4;
        px.data[i] = (px.data[i] * (255 - a) + r * a) / 255;
        px.data[i + 1] = (px.data[i + 1] * (255 - a) + g * a) / 255;
        px.data[i + 2] = (px.data[i + 2] * (255 - a) + b * a) / 255;
      }
    }
    pen += glyph.advance;
  }
}

/**
 * The RGBA pixels of a text card in one of the preview sizes (decision 029): drawn with the built-in anti-aliased
 * glyphs, no canvas and no codec needed until it is encoded.
 * @example encodePng(renderTextCard({ badge: "DOCX", accent: "#2b579a", title: "Отчёт", lines }, "thumb"))
 */
export function renderTextCard(content: CardContent, size: CardSize): Pixels {
  const spec = CARD_SPECS[size];
  const px: Pixels = { data: new Uint8ClampedArray(spec.width * spec.height * 4), width: spec.width, height: spec.height };
  for (const op of layoutCard(content, spec)) {
    if (op.type === "rect") fillRect(px, op);
    else drawText(px, op);
  }
  return px;
}
