/**
 * A planned archive as bytes: the files' main variants are looked up a slice at a time while the archive streams,
 * and each file's object is opened just before the writer reaches it, one file ahead (workers/lib/zip-stream.ts), so a selection of
 * any size streams with flat memory and a bounded number of D1 queries per slice.
 */
import { ru } from "../../../shared/i18n/ru";
import { selectZipVariants, type ZipVariantRow } from "../../db/repositories/zip-selection.repository";
import { zipStream, type ZipSource } from "../../lib/zip-stream";
import { auditDownloadStatement, type RequestContext } from "../access";
import { MAIN_VARIANT_TYPES, backendFor } from "../library";
import type { PlannedFile, ZipPlan } from "./zip-plan.service";

/** Variants looked up per D1 query while the archive streams. */
const LOOKUP_SLICE = 100;

/** Who takes the files out, and through what: the facts a record of the download needs. */
export interface ZipDownloader {
  /** the user, or null for a visitor of a link */
  userId: string | null;
  via: "app" | "link" | "task";
  /** the link, when `via` is "link" */
  shortlinkId?: string;
  ip?: string | null;
}

/**
 * The one place a file's bytes are read into an archive, i.e. where a file is downloaded as part of a ZIP (app,
 * link or export task alike). Answers null when the bytes are gone.
 */
export async function openZipEntry(
  rc: RequestContext,
  downloader: ZipDownloader,
  file: PlannedFile,
  variant: ZipVariantRow,
): Promise<ReadableStream<Uint8Array> | null> {
  const object = await (await backendFor(rc, variant.storage_id)).get(variant.storage_key);
  return object?.body ?? null;
}

function mainOf(rows: readonly ZipVariantRow[]): Map<string, ZipVariantRow> {
  const out = new Map<string, ZipVariantRow>();
  for (const type of [...MAIN_VARIANT_TYPES].reverse()) {
    for (const r of rows) if (r.variant_type === type) out.set(r.asset_id, r);
  }
  return out;
}

function byAsset(rows: readonly ZipVariantRow[]): Map<string, ZipVariantRow[]> {
  const out = new Map<string, ZipVariantRow[]>();
  for (const r of rows) out.set(r.asset_id, [...(out.get(r.asset_id) ?? []), r]);
  return out;
}

/** Progress of an archive being written: files done so far. */
export type ZipProgress = (files: number) => void;

/** The archive of `plan` as a stream of bytes; «ПРОПУЩЕНО.txt» comes last when anything was left out. */
export function planStream(
  rc: RequestContext,
  downloader: ZipDownloader,
  plan: ZipPlan,
  onProgress?: ZipProgress,
  /** where files' bytes are, for a plan that does not carry them: the catalog's rows unless told */
  lookup: (ids: string[]) => Promise<ZipVariantRow[]> = (ids) => selectZipVariants(rc.db, ids),
): ReadableStream<Uint8Array> {
  const skipped = [...plan.skipped];
  const known = plan.variants ? byAsset(plan.variants) : null;
  let done = 0;
  async function* sources(): AsyncGenerator<ZipSource> {
    for (let i = 0; i < plan.files.length; i += LOOKUP_SLICE) {
      const slice = plan.files.slice(i, i + LOOKUP_SLICE);
      const ids = [...new Set(slice.map((f) => f.assetId))];
      const main = mainOf(known ? ids.flatMap((id) => known.get(id) ?? []) : await lookup(ids));
      // Each file that goes out is a download of it (the file's history counts it): one entry per file, written a
      // slice at a time as the archive reaches it (the writer asks for the next file while the current one streams, so
      // a slice is recorded as its first file's object is opened), so an archive stopped half-way records what it
      // handed out.
      const going = slice.filter((f) => main.has(f.assetId));
      if (going.length > 0) {
        await rc.db.run(
          auditDownloadStatement(rc, {
            actorId: downloader.userId,
            channel: "zip",
            files: going.map((f) => ({ id: f.assetId, name: f.name, folderId: f.folderId })),
            details: { via: downloader.via, ...(downloader.shortlinkId ? { shortlink: downloader.shortlinkId } : {}) },
          }),
        );
      }
      for (const file of slice) {
        const variant = main.get(file.assetId);
        yield {
          path: file.path,
          lastModified: file.mtime,
          size: variant?.content_size,
          open: async () => (variant ? await openZipEntry(rc, downloader, file, variant) : null),
        };
      }
    }
  }
  return zipStream(sources(), {
    onMissing: (source) => skipped.push(`${source.path} — ${ru.zip.noBytes}`),
    // Counted as the writer reaches a file, not when its object is opened (that happens one file ahead).
    onEntry: () => onProgress?.(++done),
    trailer: {
      path: ru.zip.skippedEntry,
      text: () => (skipped.length > 0 ? `${ru.zip.skippedTitle}\r\n${skipped.join("\r\n")}\r\n` : null),
    },
  });
}
