import { z } from "zod";
import { ru } from "../../../shared/i18n/ru";

/**
 * Where a comment points (decision 035), checked twice: its shape by the route (fractions 0–1, the rectangle inside
 * the image, times from 0, pages from 1), then by `anchorProblem` against what the product knows of the media at
 * that version (its duration and page count; unknown measures only keep the lower bounds).
 */

const fraction = z.number().min(0).max(1);

export const RegionSchema = z
  .object({ x: fraction, y: fraction, w: z.number().gt(0).max(1), h: z.number().gt(0).max(1) })
  .strict()
  // The rectangle must lie inside the picture, not merely start inside it (a tiny tolerance for float rounding).
  .refine((r) => r.x + r.w <= 1 + 1e-9, { message: ru.comments.regionOutside, path: ["w"] })
  .refine((r) => r.y + r.h <= 1 + 1e-9, { message: ru.comments.regionOutside, path: ["h"] });

export const TimeSchema = z
  .object({ start: z.number().min(0).max(1e7), end: z.number().min(0).max(1e7).optional() })
  .strict()
  .refine((t) => t.end === undefined || t.end >= t.start, { message: ru.comments.endBeforeStart, path: ["end"] });

/** A drawn mark (arrow or free line) as points in fractions of the picture; at most 500 points. */
export const PathSchema = z
  .object({ kind: z.enum(["arrow", "line"]), points: z.array(z.tuple([fraction, fraction])).min(2).max(500) })
  .strict();

export const AnchorSchema = z
  .object({
    region: RegionSchema.optional(),
    time: TimeSchema.optional(),
    page: z.number().int().min(1).max(1_000_000).optional(),
    path: PathSchema.optional(),
  })
  .strict()
  .refine((a) => a.region || a.time || a.page !== undefined || a.path, { message: ru.comments.anchorEmpty });

export type Anchor = z.infer<typeof AnchorSchema>;

/** The first way the anchor misses the media, as a field name and a message; null when it fits. */
export function anchorProblem(anchor: Anchor, media: { duration: number | null; pages: number | null }): { field: string; message: string } | null {
  if (anchor.time && media.duration !== null) {
    if (anchor.time.start > media.duration) return { field: "anchor.time.start", message: ru.comments.pastEnd(media.duration) };
    if (anchor.time.end !== undefined && anchor.time.end > media.duration) return { field: "anchor.time.end", message: ru.comments.pastEnd(media.duration) };
  }
  if (anchor.page !== undefined && media.pages !== null && anchor.page > media.pages) return { field: "anchor.page", message: ru.comments.pastLastPage(media.pages) };
  return null;
}

/** `@login` tokens of a text: after the start, a space or an opening mark; trailing punctuation is not part of it. */
export function mentionTokens(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?:^|[\s(«"'])@([^\s@]+)/gu)) out.add(m[1]);
  return [...out];
}

/** A login as written may end in punctuation that is not part of it («@ivan,»): the candidates to look up. */
export function loginCandidates(token: string): string[] {
  const stripped = token.replace(/[.,;:!?)»"']+$/u, "");
  return stripped && stripped !== token ? [token, stripped] : [token];
}

/** The first 200 characters, on one line: what a notification quotes. */
export function excerptOf(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
