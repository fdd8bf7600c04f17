import { cardFont, measureText, type CardFont, type CardFontName } from "./card-font";

/**
 * The layout of a text card (decision 029): a light page with the document's own first lines — a title from its
 * first heading (else the file name), then its paragraphs, headings and table rows as they come, cut where the page
 * ends — and a badge naming the type. Pure: it answers drawing operations, `text-card.ts` turns them into pixels.
 */

/** What a card shows, in the document's order. */
export interface CardContent {
  /** short type name on the badge, e.g. «DOCX» */
  badge: string;
  /** badge and top strip colour, `#rrggbb` */
  accent: string;
  title: string;
  lines: CardLine[];
  /** shown, muted, when there are no lines */
  empty?: string;
}
export type CardLine = { type: "heading" | "paragraph"; text: string } | { type: "row"; cells: string[] };

/** One size of card: the page and its fonts. */
export interface CardSpec {
  width: number;
  height: number;
  margin: number;
  body: CardFontName;
  bold: CardFontName;
  title: CardFontName;
  /** columns of a table row drawn at most */
  maxColumns: number;
}

/** Thumb and medium fit the SPEC preview boxes (320 and 1280) as 3:4 pages; each has fonts sized for it. */
export const CARD_SPECS = {
  thumb: { width: 240, height: 320, margin: 14, body: "r10", bold: "b10", title: "b13", maxColumns: 4 },
  medium: { width: 960, height: 1280, margin: 64, body: "r26", bold: "b26", title: "b36", maxColumns: 5 },
} as const satisfies Record<string, CardSpec>;

export type CardOp =
  | { type: "rect"; x: number; y: number; w: number; h: number; color: string; radius?: number }
  | { type: "text"; x: number; y: number; text: string; font: CardFontName; color: string };

export const PAGE_COLOR = "#fbfbf8";
export const INK = "#1f2328";
const MUTED = "#8a8f98";
const RULE = "#dcdcd6";

/** Tabs become spaces, other control characters go (they have no glyph and no width). */
export function cleanText(text: string): string {
  return text.replace(/\t/g, "    ").replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\ufeff]/g, "").trimEnd();
}

/** `text` cut to fit `width`, ending in «…» when it was cut. */
export function fitText(font: CardFont, text: string, width: number): string {
  if (measureText(font, text) <= width) return text;
  const chars = [...text];
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measureText(font, chars.slice(0, mid).join("") + "…") <= width) lo = mid;
    else hi = mid - 1;
  }
  return chars.slice(0, lo).join("").trimEnd() + "…";
}

/** Greedy word wrap into lines no wider than `width`; a word wider than a line is split by characters. */
export function wrapText(font: CardFont, text: string, width: number, maxLines = Infinity): string[] {
  const out: string[] = [];
  let line = "";
  const push = (l: string) => out.push(l);
  for (const word of text.split(/ +/)) {
    const candidate = line ? `${line} ${word}` : word;
    if (measureText(font, candidate) <= width) {
      line = candidate;
      continue;
    }
    if (line) push(line);
    line = "";
    let rest = word;
    while (measureText(font, rest) > width && out.length < maxLines) {
      const piece = fitText(font, rest, width).replace(/…$/, "");
      const cut = Math.max(1, [...piece].length);
      push([...rest].slice(0, cut).join(""));
      rest = [...rest].slice(cut).join("");
    }
    line = rest;
    if (out.length >= maxLines) break;
  }
  if (line && out.length < maxLines) push(line);
  if (out.length > maxLines) out.length = maxLines;
  return out;
}

/**
 * The drawing operations of one card: background, the accent strip, the badge, the title (two lines at most), a
 * rule, then the lines until the page is full.
 */
export function layoutCard(content: CardContent, spec: CardSpec): CardOp[] {
  const ops: CardOp[] = [];
  const body = cardFont(spec.body);
  const bold = cardFont(spec.bold);
  const titleFont = cardFont(spec.title);
  const m = spec.margin;
  const textWidth = spec.width - 2 * m;
  const bottom = spec.height - m;
  const strip = Math.max(3, Math.round(spec.height / 100));
  ops.push({ type: "rect", x: 0, y: 0, w: spec.width, h: spec.height, color: PAGE_COLOR });
  ops.push({ type: "rect", x: 0, y: 0, w: spec.width, h: strip, color: content.accent });

  // Badge: top right, the type in white bold on the accent colour.
  const badgeText = content.badge.slice(0, 6);
  const padX = Math.round(bold.size * 0.5);
  const badgeW = Math.ceil(measureText(bold, badgeText)) + 2 * padX;
  const badgeH = Math.round(bold.lineHeight * 1.15);
  const badgeY = strip + Math.round(m * 0.6);
  ops.push({ type: "rect", x: spec.width - m - badgeW, y: badgeY, w: badgeW, h: badgeH, color: content.accent, radius: Math.round(badgeH / 4) });
  ops.push({
    type: "text",
    x: spec.width - m - badgeW + padX,
    y: badgeY + Math.round((badgeH + bold.ascent * 0.72) / 2),
    text: badgeText,
    font: spec.bold,
    color: "#ffffff",
  });

  // Title: beside the badge, two lines at most.
  let y = badgeY + badgeH + Math.round(m * 0.5);
  const title = cleanText(content.title) || "—";
  const titleLines = wrapText(titleFont, title, textWidth, 2);
  if (wrapText(titleFont, title, textWidth, 3).length > 2) titleLines[1] = fitText(titleFont, `${titleLines[1]}…`, textWidth);
  for (const line of titleLines) {
    y += titleFont.lineHeight;
    ops.push({ type: "text", x: m, y: y - Math.round(titleFont.lineHeight - titleFont.ascent), text: line, font: spec.title, color: INK });
  }
  y += Math.round(body.lineHeight * 0.4);
  ops.push({ type: "rect", x: m, y, w: textWidth, h: Math.max(1, Math.round(spec.height / 640)), color: RULE });
  y += Math.round(body.lineHeight * 0.6);

  const baseline = (font: CardFont) => y + font.ascent;
  let inTable = false;
  for (const line of content.lines) {
    if (y + body.lineHeight > bottom) break;
    if (line.type === "row") {
      const cells = line.cells.slice(0, spec.maxColumns).map(cleanText);
      if (cells.every((c) => !c)) continue;
      const colW = textWidth / cells.length;
      // The first row of a table is its header: bold.
      const header = !inTable;
      inTable = true;
      cells.forEach((cell, i) => {
        const x = Math.round(m + i * colW);
        if (i > 0) ops.push({ type: "rect", x: x - Math.round(body.size * 0.3), y, w: 1, h: body.lineHeight, color: RULE });
        const font = header ? bold : body;
        if (cell) ops.push({ type: "text", x, y: baseline(font), text: fitText(font, cell, colW - body.size * 0.6), font: header ? spec.bold : spec.body, color: INK });
      });
      y += body.lineHeight;
      ops.push({ type: "rect", x: m, y: y - 1, w: textWidth, h: 1, color: RULE });
      continue;
    }
    inTable = false;
    const text = cleanText(line.text);
    if (!text.trim()) {
      y += Math.round(body.lineHeight * 0.5);
      continue;
    }
    const heading = line.type === "heading";
    const font = heading ? bold : body;
    if (heading) y += Math.round(body.lineHeight * 0.3);
    for (const piece of wrapText(font, text.trim(), textWidth)) {
      if (y + font.lineHeight > bottom) break;
      ops.push({ type: "text", x: m, y: baseline(font), text: piece, font: heading ? spec.bold : spec.body, color: heading ? INK : "#3b4048" });
      y += font.lineHeight;
    }
  }
  if (content.lines.length === 0) ops.push({ type: "text", x: m, y: baseline(body), text: fitText(body, content.empty ?? "…", textWidth), font: spec.body, color: MUTED });
  return ops;
}
