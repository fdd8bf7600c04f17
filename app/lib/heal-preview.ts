import { apiRequest, apiResponse } from "./api-client";
import { announceHealed } from "./heal-events";
import { BOXES, imagePreviews, sizesOf, svgPreviews, UnreadableMediaError, videoPreviews, type PreviewBlobs } from "./browser-previews";
import { mediaKind } from "./media-kind";

/**
 * Heal on view (decision 029): a file without a preview gets one from the next browser that shows it and can
 * decode it — images (SVG too), video posters and scrub strips, PDF first pages, audio waveforms. The pictures are stored with
 * `POST /api/asset/upload-preview/{id}?heal=true`: the server keeps the first one (409 afterwards), so a browser that
 * lost the race or tried in vain simply stops. One heal runs at a time, and each file is tried once per tab.
 */

/** What a heal needs to know of a file. */
export interface HealTarget {
  assetId: string;
  version: number;
  /** the main variant (the original: fetching it needs `download`) */
  variantId: string;
  mime: string;
  /** its size in bytes, when known (large files are not fetched whole) */
  bytes?: number | null;
  /** a play link to read instead of the variant's (the maker's own pending proxy has no variant of its own yet) */
  sourceLink?: string;
}

/** What a file still lacks. */
export interface Missing {
  thumb: boolean;
  strip: boolean;
  /** a PDF still showing its text card: its first page replaces it once */
  page: boolean;
}

/**
 * How long after a change a file is left alone: its uploader's page is still making its pictures (a poster, a
 * strip) and its processing its previews; a heal in that window would only lose the race (409).
 */
export const SETTLE_MS = 15_000;

/** Milliseconds until a file changed at `mtime` (ISO) may be healed; 0 when it may now. */
export function untilSettled(mtime: string | null | undefined, settle = SETTLE_MS, now = Date.now()): number {
  const changed = Date.parse(mtime ?? "") || 0;
  return Math.max(0, changed + settle - now);
}

/** Whole files (images, PDFs) a heal reads into memory at most. Videos are read by the player with Range. */
export const MAX_HEAL_BYTES = 64 * 1024 * 1024;

export type HealOutcome = "healed" | "nothing" | "unreadable" | "refused";

const tried = new Set<string>();
let chain: Promise<unknown> = Promise.resolve();

/** The kinds a browser may heal. */
export function healable(mime: string): "image" | "video" | "pdf" | null {
  const kind = mediaKind(mime);
  return kind === "image" || kind === "video" || kind === "pdf" ? kind : null;
}

function isSvg(mime: string): boolean {
  return mime.split(";")[0].trim().toLowerCase() === "image/svg+xml";
}

/** Whether the asset has a preview of that kind (`POST /api/asset/content/preview-by-list`: null is none, no 404). */
export async function hasPreview(assetId: string, size: "thumb" | "strip"): Promise<boolean> {
  const { list } = await apiRequest<{ list: { asset_id: string; preview: string | null }[] }>("/api/asset/content/preview-by-list", {
    method: "POST",
    body: { ids: [assetId], size },
    toast: false,
  });
  return Boolean(list[0]?.preview);
}

/** Asks the server what the file lacks (no failing request: the list call answers null for a missing preview). */
export async function missingPreviews(target: HealTarget): Promise<Missing> {
  const kind = healable(target.mime);
  const thumb = kind ? await hasPreview(target.assetId, "thumb") : true;
  const strip = kind === "video" ? await hasPreview(target.assetId, "strip") : true;
  let page = false;
  if (kind === "pdf" && thumb) {
    // Not kept in the HTTP cache: the grid would otherwise show this card for a minute after the page replaced it.
    const response = await apiResponse(`/api/asset/content/preview/${target.assetId}/${target.version}/thumb`, undefined, "no-store");
    page = response.headers.get("x-preview-maker") === "card";
    await response.body?.cancel();
  }
  return { thumb: !thumb, strip: !strip, page };
}

/** Stores one picture as a heal; a 409 (someone was first) counts as done. */
export async function storeHealed(assetId: string, version: number, size: "thumb" | "medium" | "strip", blob: Blob): Promise<boolean> {
  try {
    await apiRequest(`/api/asset/upload-preview/${assetId}`, {
      method: "POST",
      body: blob,
      query: { version, size, heal: "true" },
      toast: false,
    });
    announceHealed(assetId);
    return true;
  } catch {
    return false;
  }
}

/** A PDF's first page (pdf.js in its own worker, loaded only now: never part of the app's bundle), both sizes. */
async function pdfPreviews(bytes: ArrayBuffer): Promise<PreviewBlobs | null> {
  const { renderFirstPage } = await import("./pdf-page.client");
  const canvas = await renderFirstPage(bytes, BOXES.medium);
  return canvas ? sizesOf(canvas, canvas.width, canvas.height) : null;
}

async function playUrl(target: HealTarget): Promise<string | null> {
  try {
    const { link } = await apiRequest<{ link: string }>(`/api/asset/content/play-variant/${target.variantId}`, {
      method: "POST",
      query: { a: target.assetId },
      body: {},
      toast: false,
    });
    return link;
  } catch {
    return null; // no `download` on the file: its original cannot be read here
  }
}

async function make(target: HealTarget, missing: Missing): Promise<PreviewBlobs | "unreadable" | "refused"> {
  const kind = healable(target.mime);
  if (!kind) return "unreadable";
  if (kind !== "video" && target.bytes && target.bytes > MAX_HEAL_BYTES) return "refused";
  const link = target.sourceLink ?? (await playUrl(target));
  if (!link) return "refused";
  if (kind === "video") {
    try {
      return await videoPreviews(link, { poster: missing.thumb, strip: missing.strip });
    } catch (error) {
      if (error instanceof UnreadableMediaError) return "unreadable";
      throw error;
    }
  }
  const response = await fetch(link);
  if (!response.ok) return "refused";
  if (kind === "image") {
    const blob = await response.blob();
    // createImageBitmap does not take SVG: it is drawn through an <img> (no scripts, nothing fetched).
    return (isSvg(target.mime) ? await svgPreviews(blob) : await imagePreviews(blob)) ?? "unreadable";
  }
  return (await pdfPreviews(await response.arrayBuffer())) ?? "unreadable";
}

/**
 * Makes and stores what `target` lacks (asking the server first unless `missing` is given). Queued behind other
 * heals of this tab; a file already tried in this tab answers "nothing".
 */
export function healPreview(target: HealTarget, missing?: Missing): Promise<HealOutcome> {
  // Per source: a video the browser could not read is tried again from its proxy once one is made (decision 029).
  const key = `${target.assetId}:${target.version}:${target.variantId}`;
  if (tried.has(key) || !healable(target.mime)) return Promise.resolve("nothing");
  tried.add(key);
  const run = async (): Promise<HealOutcome> => {
    const lacks = missing ?? (await missingPreviews(target));
    if (!lacks.thumb && !lacks.strip && !lacks.page) return "nothing";
    const made = await make(target, lacks);
    if (made === "unreadable" || made === "refused") return made;
    let stored = false;
    for (const size of ["thumb", "medium", "strip"] as const) {
      const blob = made[size];
      if (blob) stored = (await storeHealed(target.assetId, target.version, size, blob)) || stored;
    }
    return stored ? "healed" : "nothing";
  };
  const result = chain.then(run, run).catch((error: unknown) => {
    console.warn("preview not healed", error);
    return "nothing" as const;
  });
  chain = result;
  return result;
}
