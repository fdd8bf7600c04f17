import { and, eq } from "drizzle-orm";
import { ru } from "../../../../shared/i18n/ru";
import { replacePreviewStatements } from "../../../db/repositories/preview.repository";
import { setPictureHashSql } from "../../../db/repositories/duplicates.repository";
import { runBatch, type Statement } from "../../../db/repositories/asset.repository";
import { previews, variants } from "../../../db/schema/index";
import { newId } from "../../../lib/ids";
import {
  cardReadBytes,
  documentCard,
  hasTextCard,
  imageInfo,
  limits,
  looksLikeWav,
  officeThumbnail,
  ParseLimitError,
  parseWav,
  PeakAccumulator,
  PREVIEW_MAX_BYTES,
  PREVIEW_SIZES,
  previewStorageKey,
  storeGeneratedPreview,
  storeWaveform,
  svgInfo,
  WavError,
  type PreviewSizeName,
} from "../../media/decode";
import { WAVEFORM_BUCKETS } from "../../../../shared/waveform";
import { r2Backend } from "../../storage";
import { backendFor } from "../../library";
import { inItemLibrary } from "./item-library";
import { assetIdsOf, loadAssetSource, readVariantBytes, readVariantRange, type AssetSource } from "./asset-source";
import {
  decodeImage,
  decodePhoto,
  differenceHash,
  phashHalves,
  LeftToBrowser,
  PreviewUnavailable,
  rasteriseSvg,
  sniffImage,
  declaredSize,
  type ImageKind,
  type ByteSource,
  type Pixels,
  encodeJpeg,
  encodePng,
  fitInside,
  renderTextCard,
  renderWaveformPng,
  MAX_DECODE_PIXELS,
  resizePixels,
  type DecodableType,
} from "../../imaging";
import { percent, type OperationContext, type TaskOperation } from "./operation";
import { previewSpec, type PreviewOptions } from "./preview.spec";
import { techFieldsPatch, type StageState } from "./processing-state";
import { failStuckAsset } from "./stuck-item";

/** Largest source image read for a preview (bytes). */
export const PREVIEW_SOURCE_MAX_BYTES = 64 * 1024 * 1024;

/** The preview size stored also as the version's `proxy_lowres` variant (the largest of the preview config). */
export const PROXY_SIZE: PreviewSizeName = "medium";


interface PreviewState {
  index: number;
  made: number;
  failed: string[];
}

/** What one asset came to; `reason` (Russian) says why it was skipped or failed. */
interface Outcome {
  outcome: "made" | "skipped" | "failed";
  reason?: string;
}

/**
 * Stores one generated preview (JPEG of an image, PNG of a transparent image or a text card): the bytes in R2, then one batch swapping
 * the `previews` row of that version and size (what /api/asset/preview and the group grid read) and, for the proxy
 * size of an image, the version's `proxy_lowres` variant. Replaced objects are deleted afterwards.
 */
/**
 * The statement storing the difference hash of a preview picture on the version's main variant (near-duplicates,
 * migrations/0049_duplicates.sql); null when the picture does not decode (the preview itself is still stored).
 */
async function pictureHashStatement(source: AssetSource, bytes: Uint8Array, mime: DecodableType): Promise<Statement | null> {
  try {
    const { hi, lo } = phashHalves(differenceHash(await decodeImage(mime, bytes)));
    return setPictureHashSql(source.main.variant.id, hi, lo);
  } catch {
    return null;
  }
}

async function storePreview(
  ctx: OperationContext<PreviewOptions>,
  source: AssetSource,
  size: PreviewSizeName,
  bytes: Uint8Array,
  kind: { mime: "image/jpeg" | "image/png"; proxy: boolean } = { mime: "image/jpeg", proxy: true },
) {
  const { rc } = ctx;
  const info = imageInfo(bytes)!;
  const now = Date.now();
  const id = newId(now);
  const key = previewStorageKey(source.asset.id, id);
  const media = r2Backend(rc.env.MEDIA);
  await media.put(key, bytes, { contentType: kind.mime, size: bytes.length });
  const statements: Statement[] = [
    ...replacePreviewStatements(rc.db, {
      id,
      assetId: source.asset.id,
      versionId: source.main.versionId,
      size,
      mimeType: kind.mime,
      width: info.width,
      height: info.height,
      contentSize: bytes.length,
      storageKey: key,
      // A text card may be replaced once by a browser's page render (heal-on-view, decision 029); a codec's never.
      maker: kind.proxy ? "codec" : "card",
      ctime: now,
    }),
  ];
  // The thumbnail of a picture (never a text card) carries the version's near-duplicate hash, in the same batch.
  const hash = size === "thumb" && kind.proxy ? await pictureHashStatement(source, bytes, kind.mime) : null;
  if (hash) statements.push(hash);
  let proxyKey: string | null = null;
  // A text card is no proxy of its document (issue 26 item 4 names a PDF or text rendition for that).
  if (size === PROXY_SIZE && kind.proxy) {
    proxyKey = `proxies/${source.asset.id}/${id}`;
    await media.put(proxyKey, bytes, { contentType: kind.mime, size: bytes.length });
    statements.push(
      rc.db
        .delete(variants)
        .where(and(eq(variants.versionId, source.main.versionId), eq(variants.variantType, "proxy_lowres")))
        .returning({ storageKey: variants.storageKey }),
      rc.db.insert(variants).values({
        id: newId(now),
        assetId: source.asset.id,
        versionId: source.main.versionId,
        variantType: "proxy_lowres",
        status: "ready",
        name: `${info.width}×${info.height}`,
        mimeType: kind.mime,
        format: kind.mime === "image/png" ? "png" : "jpeg",
        fileName: `${source.asset.name}.preview.${kind.mime === "image/png" ? "png" : "jpg"}`,
        contentSize: bytes.length,
        storageId: "0".repeat(32),
        storageKey: proxyKey,
        techProps: { width: info.width, height: info.height },
        userId: source.main.variant.userId,
        ctime: now,
      }),
    );
  }
  let results: D1Result[];
  try {
    results = await runBatch(rc.db, statements);
  } catch (error) {
    await media.delete(proxyKey ? [key, proxyKey] : [key]);
    throw error;
  }
  const replaced = [results[0], results[2]]
    .flatMap((r) => (r?.results ?? []) as { storageKey?: string; storage_key?: string }[])
    .map((r) => r.storageKey ?? r.storage_key)
    .filter((k): k is string => !!k && k !== key && k !== proxyKey);
  if (replaced.length > 0) await media.delete(replaced);
  return info;
}

async function previewOfImage(ctx: OperationContext<PreviewOptions>, source: AssetSource, type: DecodableType): Promise<Outcome> {
  const name = source.asset.name;
  const bytes = await readVariantBytes(ctx.rc, source, PREVIEW_SOURCE_MAX_BYTES);
  if (!bytes) throw new Error(`object of variant ${source.main.variant.id} is missing from its storage`);
  const header = imageInfo(bytes);
  // The pixel count comes from the header (PNG IHDR, JPEG SOF, WebP) before anything is decoded.
  if (header && header.width * header.height > MAX_DECODE_PIXELS) {
    const reason = ru.tasks.log.imageTooLarge(name, Math.round((header.width * header.height) / 1e5) / 10, MAX_DECODE_PIXELS / 1e6);
    await ctx.log("error", reason);
    return { outcome: "failed", reason };
  }
  let pixels;
  try {
    if (!header) throw new Error("no image header");
    pixels = await decodeImage(type, bytes);
  } catch {
    const reason = ru.tasks.log.corruptImage(name, type);
    await ctx.log("error", reason);
    return { outcome: "failed", reason };
  }
  await storeImagePreviews(ctx, source, pixels, type !== "image/jpeg");
  return { outcome: "made" };
}

/** The preview sizes this task makes, the largest first (each smaller one is resized from the one before). */
const sizesLargestFirst = (ctx: OperationContext<PreviewOptions>) =>
  PREVIEW_SIZES.filter((s) => ctx.options.sizes.includes(s.name)).sort((a, b) => b.width - a.width);

/** The longer side of the largest preview this task makes: what a scaled decoder or a rasteriser needs to reach. */
function largestSide(ctx: OperationContext<PreviewOptions>): number {
  const largest = sizesLargestFirst(ctx)[0];
  return largest ? Math.max(largest.width, largest.height) : 0;
}

/** Whether any pixel is less than opaque (RGBA bytes: every fourth is alpha). */
function hasTransparency(image: Pixels): boolean {
  for (let i = 3; i < image.data.length; i += 4) if (image.data[i] !== 255) return true;
  return false;
}

/** Resizes decoded pixels to each preview size (largest first, each from the previous one) and stores them as JPEG. */
async function storeImagePreviews(ctx: OperationContext<PreviewOptions>, source: AssetSource, pixels: Pixels, alpha: boolean, via?: string) {
  const made: string[] = [];
  let from = pixels;
  for (const size of sizesLargestFirst(ctx)) {
    const box = fitInside(pixels.width, pixels.height, size);
    const resized = await resizePixels(from, box.width, box.height, { alpha });
    from = resized;
    // A transparent image keeps its alpha (a PNG preview; the viewer and the grid lay it on a checkerboard): JPEG
    // would flatten it onto one colour. A PNG past the preview limit falls back to JPEG on white.
    const png = alpha && hasTransparency(resized) ? await encodePng(resized) : null;
    const info =
      png && png.length <= PREVIEW_MAX_BYTES
        ? await storePreview(ctx, source, size.name, png, { mime: "image/png", proxy: true })
        : await storePreview(ctx, source, size.name, await encodeJpeg(resized, size.quality));
    made.push(`${size.name} ${info.width}×${info.height}`);
  }
  await ctx.log("info", ru.tasks.log.previewMade(source.asset.name, made.join(", ") + (via ? ` (${via})` : "")));
}

/** A stored file read in pieces by range reads (the streaming decoders never hold it whole). */
function variantSource(ctx: OperationContext<PreviewOptions>, source: AssetSource): ByteSource {
  const size = source.main.variant.contentSize;
  return {
    size,
    async read(offset, length) {
      if (offset >= size || length <= 0) return new Uint8Array(0);
      const bytes = await readVariantRange(ctx.rc, source, offset, Math.min(length, size - offset));
      if (!bytes) throw new Error(`object of variant ${source.main.variant.id} is missing from its storage`);
      return bytes;
    },
  };
}

/** Kinds Cloudflare Images takes as input; TIFF, camera RAW and SVG stay with the in-Worker makers. */
const IMAGES_BINDING_KINDS: ReadonlySet<ImageKind> = new Set(["jpeg", "png", "webp", "avif", "heif"]);

/** Bytes read to find a JPEG's frame header when its metadata segments (Exif, ICC, MPF) fill the first read. */
const JPEG_FRAME_SCAN_BYTES = 1024 * 1024;

/** One transform by the binding, JPEG out; throws when Images refuses it or answers something else. */
async function imagesJpeg(images: ImagesBinding, input: ReadableStream<Uint8Array>, size: (typeof PREVIEW_SIZES)[number]) {
  const result = await images
    .input(input)
    // White under transparency, as the codecs' encodeJpeg does (Images flattens onto `background`).
    .transform({ width: size.width, height: size.height, fit: "scale-down", background: "#ffffff" })
    .output({ format: "image/jpeg", quality: size.quality });
  const bytes = new Uint8Array(await result.response().arrayBuffer());
  if (sniffImage(bytes) !== "jpeg" || !imageInfo(bytes)) throw new Error(`no JPEG in the answer (${result.contentType()})`);
  return bytes;
}

/**
 * With the optional Cloudflare Images binding (`IMAGES`, README «Optional bindings»), JPEG, PNG, WebP, AVIF and HEIC
 * previews are made by Images (scale-down, JPEG out) instead of the in-Worker makers: any size it accepts, no isolate
 * memory. Bounded like those makers: a file past MAX_PREVIEW_SOURCE_BYTES, or whose header does not declare its size
 * or declares more than MAX_PREVIEW_SOURCE_PIXELS, is never handed to Images. The original is streamed to Images
 * once, for the largest size; each smaller size is scaled from the previous output (at most 1280 px). Nothing is
 * stored until every size is made. Answers false (the in-Worker makers then run) when the binding is absent, the
 * file is not for it, or Images refuses it (logged as a warning).
 */
async function previewWithImagesBinding(ctx: OperationContext<PreviewOptions>, source: AssetSource, kind: ImageKind, head: Uint8Array): Promise<boolean> {
  const images = (ctx.rc.env as { IMAGES?: ImagesBinding }).IMAGES;
  if (!images || !IMAGES_BINDING_KINDS.has(kind)) return false;
  const v = source.main.variant;
  if (v.contentSize > limits.MAX_PREVIEW_SOURCE_BYTES) return false;
  let frame = declaredSize(kind, head);
  if (!frame && kind === "jpeg" && v.contentSize > head.length) {
    const more = await readVariantBytes(ctx.rc, source, JPEG_FRAME_SCAN_BYTES);
    frame = more && declaredSize(kind, more);
  }
  if (!frame || frame.width * frame.height > limits.MAX_PREVIEW_SOURCE_PIXELS) return false;
  const object = await (await backendFor(ctx.rc, v.storageId)).get(v.storageKey);
  if (!object?.body) throw new Error(`object of variant ${v.id} is missing from its storage`);
  const sizes = PREVIEW_SIZES.filter((s) => ctx.options.sizes.includes(s.name)).sort((a, b) => b.width - a.width);
  const outputs: { name: PreviewSizeName; bytes: Uint8Array }[] = [];
  try {
    let input: ReadableStream<Uint8Array> = object.body;
    for (const size of sizes) {
      const bytes = await imagesJpeg(images, input, size);
      outputs.push({ name: size.name, bytes });
      input = new Blob([bytes]).stream();
    }
  } catch (error) {
    await object.body.cancel().catch(() => undefined);
    await ctx.log("warn", ru.tasks.log.imagesBindingFailed(source.asset.name, error instanceof Error ? error.message : String(error)));
    return false;
  }
  const made: string[] = [];
  for (const output of outputs) {
    const info = await storePreview(ctx, source, output.name, output.bytes);
    made.push(`${output.name} ${info.width}×${info.height}`);
  }
  await ctx.log("info", ru.tasks.log.previewMade(source.asset.name, `${made.join(", ")} (Cloudflare Images)`));
  return true;
}

/**
 * Images by what their bytes are (the name and the declared type may lie): PNG and WebP decoded whole (up to
 * 12 MP), a larger one scaled as it decodes; JPEG, TIFF, camera RAW, HEIC/HEIF/AVIF and SVG through imaging's decodePhoto (scaled and strip-wise
 * decoding, embedded previews), each failing with its reason when it cannot be read.
 */
async function previewOfImageFile(ctx: OperationContext<PreviewOptions>, source: AssetSource, mime: string): Promise<Outcome> {
  const name = source.asset.name;
  const head = await readVariantBytes(ctx.rc, source, limits.MAX_WAV_HEADER_BYTES);
  if (!head) throw new Error(`object of variant ${source.main.variant.id} is missing from its storage`);
  const kind = sniffImage(head);
  if (kind && (await previewWithImagesBinding(ctx, source, kind, head))) return { outcome: "made" };
  if (kind === "png" || kind === "webp") {
    // A PNG or WebP over 12 MP is decoded straight to preview size (decodePhoto below: row by row, by libwebp's
    // rescaler), never whole.
    const header = imageInfo(head);
    const big = header !== null && header.width * header.height > MAX_DECODE_PIXELS;
    if (!big) return previewOfImage(ctx, source, `image/${kind}`);
  }
  if (kind === "svg") return previewOfSvg(ctx, source);
  if (kind === "gif" || kind === "bmp") {
    await ctx.log("info", ru.tasks.log.unsupportedType(name, `image/${kind}`));
    return { outcome: "skipped", reason: ru.processing.noPreview(`image/${kind}`) };
  }
  try {
    if (!kind) throw new PreviewUnavailable(ru.makers.notWhatItSays(mime));
    const { pixels, via } = await decodePhoto(kind, variantSource(ctx, source), head, largestSide(ctx));
    await storeImagePreviews(ctx, source, pixels, kind !== "jpeg", via);
    return { outcome: "made" };
  } catch (error) {
    if (!(error instanceof PreviewUnavailable)) throw error;
    // A broken JPEG reads as it always has («Не удалось декодировать изображение …»).
    const reason = kind === "jpeg" && error.reason === ru.makers.corrupt("JPEG") ? ru.tasks.log.corruptImage(name, "image/jpeg") : error.reason;
    await ctx.log("error", reason === error.reason ? ru.tasks.log.refused(name, reason) : reason);
    return { outcome: "failed", reason };
  }
}

/**
 * SVG drawn by resvg in the Worker (decision 029), after the size and depth checks of svgInfo. An SVG with text or
 * raster images is left to the first browser that views it (skipped with the reason, so heal-on-view makes it).
 */
async function previewOfSvg(ctx: OperationContext<PreviewOptions>, source: AssetSource): Promise<Outcome> {
  const name = source.asset.name;
  const size = source.main.variant.contentSize;
  try {
    if (size > limits.MAX_SVG_BYTES) throw new PreviewUnavailable(ru.parse.svgTooLarge(limits.MAX_SVG_BYTES / 1048576));
    const bytes = await readVariantBytes(ctx.rc, source, size);
    if (!bytes) throw new Error(`object of variant ${source.main.variant.id} is missing from its storage`);
    const info = svgInfo(bytes);
    if (!info) throw new PreviewUnavailable(ru.makers.notWhatItSays("image/svg+xml"));
    const pixels = await rasteriseSvg(bytes, largestSide(ctx));
    await storeImagePreviews(ctx, source, pixels, true, "SVG, resvg");
    return { outcome: "made" };
  } catch (error) {
    const reason = error instanceof PreviewUnavailable || error instanceof ParseLimitError ? error.reason : null;
    if (reason === null) throw error;
    if (error instanceof LeftToBrowser) {
      await ctx.log("info", ru.tasks.log.refused(name, reason));
      return { outcome: "skipped", reason };
    }
    await ctx.log("error", ru.tasks.log.refused(name, reason));
    return { outcome: "failed", reason };
  }
}

/** The shorter of a page picture's sides below which a text card tells more than the picture does. */
const MIN_OFFICE_PICTURE_SIDE = 160;

/**
 * An office document's own picture of its first page (office-thumbnail.ts), stored as its previews like a photo's;
 * false — the text card follows — when it carries none, a tiny one, or one that does not decode.
 */
async function previewOfOfficePicture(ctx: OperationContext<PreviewOptions>, source: AssetSource, bytes: Uint8Array): Promise<boolean> {
  const v = source.main.variant;
  let picture;
  try {
    picture = officeThumbnail(bytes, v.mimeType, v.fileName || source.asset.name);
  } catch (error) {
    // A broken archive is the card's to report (with the extractor's reason), not the picture's.
    if (error instanceof ParseLimitError) return false;
    throw error;
  }
  const header = picture && imageInfo(picture.bytes);
  if (!picture || !header || Math.min(header.width, header.height) < MIN_OFFICE_PICTURE_SIDE) return false;
  if (header.width * header.height > MAX_DECODE_PIXELS) return false;
  let pixels;
  try {
    pixels = await decodeImage(picture.mime, picture.bytes);
  } catch {
    return false;
  }
  await storeImagePreviews(ctx, source, pixels, picture.mime === "image/png", picture.part);
  return true;
}

/**
 * Documents with no page renderer (office, PDF, the plain-text family): a text card of the document's own first
 * lines in each size (decision 029), drawn in the Worker and stored as PNG. A file past the extractor's limits
 * fails its preview with the extractor's reason; it is never retried.
 */
async function previewOfDocument(ctx: OperationContext<PreviewOptions>, source: AssetSource): Promise<Outcome> {
  const v = source.main.variant;
  const name = source.asset.name;
  const read = cardReadBytes(v.mimeType, v.fileName || name, v.contentSize);
  if ("tooLarge" in read) {
    const reason = ru.processing.textTooLarge(Math.round(read.tooLarge / 1048576));
    await ctx.log("error", ru.tasks.log.refused(name, reason));
    return { outcome: "failed", reason };
  }
  const bytes = await readVariantBytes(ctx.rc, source, read.bytes);
  if (!bytes) throw new Error(`object of variant ${v.id} is missing from its storage`);
  // A browser already drew this version's first page (heal-on-view, decision 029): a card would be a step back.
  const page = await ctx.rc.db
    .select({ id: previews.id })
    .from(previews)
    .where(and(eq(previews.assetId, source.asset.id), eq(previews.versionId, source.main.versionId), eq(previews.maker, "page")))
    .get();
  if (page) return { outcome: "made" };
  if (await previewOfOfficePicture(ctx, source, bytes)) return { outcome: "made" };
  let card;
  try {
    card = await documentCard(bytes, v.mimeType, v.fileName || name, read.bytes < v.contentSize);
  } catch (error) {
    if (!(error instanceof ParseLimitError)) throw error;
    await ctx.log("error", ru.tasks.log.refused(name, error.reason));
    return { outcome: "failed", reason: error.reason };
  }
  const made: string[] = [];
  for (const size of PREVIEW_SIZES.filter((s) => ctx.options.sizes.includes(s.name))) {
    const png = await encodePng(renderTextCard(card, size.name));
    const info = await storePreview(ctx, source, size.name, png, { mime: "image/png", proxy: false });
    made.push(`${size.name} ${info.width}×${info.height}`);
  }
  await ctx.log("info", ru.tasks.log.previewMade(name, made.join(", ")));
  return { outcome: "made" };
}

/** True when a version already has a preview (a poster or a waveform a client made at upload). */
async function hasPreview(ctx: OperationContext<PreviewOptions>, source: AssetSource): Promise<boolean> {
  const row = await ctx.rc.db
    .select({ id: previews.id })
    .from(previews)
    .where(and(eq(previews.assetId, source.asset.id), eq(previews.versionId, source.main.versionId)))
    .get();
  return !!row;
}

/**
 * Audio: a WAV's peaks are computed here, read from storage in pieces (the whole data chunk up to
 * MAX_WAV_STREAM_BYTES, else evenly spaced windows), stored as the version's waveform JSON and drawn as its thumb and
 * medium previews. Other audio is decoded by the browser (decodeAudioData), which posts the peaks.
 */
async function previewOfAudio(ctx: OperationContext<PreviewOptions>, source: AssetSource): Promise<Outcome> {
  const name = source.asset.name;
  const v = source.main.variant;
  const head = await readVariantBytes(ctx.rc, source, limits.MAX_WAV_HEADER_BYTES);
  if (!head) throw new Error(`object of variant ${v.id} is missing from its storage`);
  if (!looksLikeWav(head)) {
    if (await hasPreview(ctx, source)) return { outcome: "made" };
    const mime = v.mimeType.split(";")[0].trim().toLowerCase();
    const claimsWav = /wav|wave/.test(mime) || /\.wav$/i.test(v.fileName || name);
    const reason = claimsWav ? ru.makers.notWhatItSays("WAV") : ru.makers.audioInBrowser;
    await ctx.log(claimsWav ? "error" : "info", ru.tasks.log.refused(name, reason));
    return { outcome: claimsWav ? "failed" : "skipped", reason };
  }
  let format;
  try {
    format = parseWav(head, v.contentSize);
  } catch (error) {
    if (!(error instanceof WavError)) throw error;
    await ctx.log("error", ru.tasks.log.refused(name, error.reason));
    return { outcome: "failed", reason: error.reason };
  }
  const peaks = new PeakAccumulator(format, WAVEFORM_BUCKETS);
  const sampled = format.dataBytes > limits.MAX_WAV_STREAM_BYTES;
  const read = async (offset: number, length: number) => {
    const bytes = await readVariantRange(ctx.rc, source, offset, length);
    if (!bytes) throw new Error(`object of variant ${v.id} is missing from its storage`);
    return bytes;
  };
  if (!sampled) {
    for (let at = 0; at < format.dataBytes; at += limits.PREVIEW_READ_CHUNK_BYTES) {
      peaks.add(await read(format.dataOffset + at, Math.min(limits.PREVIEW_READ_CHUNK_BYTES, format.dataBytes - at)));
    }
  } else {
    const frames = format.dataBytes / format.blockAlign;
    const windowFrames = Math.max(1, Math.floor(limits.WAV_SAMPLE_WINDOW_BYTES / format.blockAlign));
    for (let w = 0; w < limits.WAV_SAMPLE_WINDOWS; w++) {
      const start = Math.floor(((frames - windowFrames) * w) / Math.max(1, limits.WAV_SAMPLE_WINDOWS - 1));
      peaks.add(await read(format.dataOffset + start * format.blockAlign, windowFrames * format.blockAlign), start);
    }
  }
  const waveform = { version: 1 as const, sampleRate: format.sampleRate, durationSec: format.durationSec, peaks: Array.from(peaks.result()) };
  await storeWaveform(ctx.rc, source.asset.id, source.main.versionId, waveform);
  const made: string[] = [];
  for (const size of PREVIEW_SIZES.filter((s) => ctx.options.sizes.includes(s.name))) {
    const png = await renderWaveformPng(waveform, size.name);
    const header = imageInfo(png);
    if (!header) throw new Error("generated preview has no image header");
    const info = await storeGeneratedPreview(ctx.rc, {
      assetId: source.asset.id,
      versionId: source.main.versionId,
      size: size.name,
      bytes: png,
      width: header.width,
      height: header.height,
      mime: "image/png",
    });
    made.push(`${size.name} ${info.width}×${info.height}`);
  }
  await ctx.log("info", ru.makers.waveformMade(name, format.durationSec, sampled));
  await ctx.log("info", ru.tasks.log.previewMade(name, made.join(", ")));
  return { outcome: "made" };
}

/** Video: the poster the client made at upload is the preview; a proxy is transcoded only by Cloudflare Stream. */
async function previewOfVideo(ctx: OperationContext<PreviewOptions>, source: AssetSource): Promise<Outcome> {
  const poster = await ctx.rc.db
    .select({ id: previews.id, size: previews.size, mimeType: previews.mimeType, storageKey: previews.storageKey })
    .from(previews)
    .where(and(eq(previews.assetId, source.asset.id), eq(previews.versionId, source.main.versionId)))
    .orderBy(previews.size)
    .all()
    .then((rows) => rows.find((r) => r.size === "thumb") ?? rows[0]);
  // The poster the browser made is the video's picture: its difference hash finds near-duplicate videos.
  const posterType = poster && (["image/jpeg", "image/png", "image/webp"] as const).find((t) => t === poster.mimeType);
  if (poster && posterType) {
    const object = await r2Backend(ctx.rc.env.MEDIA).get(poster.storageKey);
    const bytes = object?.body ? new Uint8Array(await new Response(object.body).arrayBuffer()) : null;
    const hash = bytes && bytes.length <= PREVIEW_MAX_BYTES ? await pictureHashStatement(source, bytes, posterType) : null;
    if (hash) await runBatch(ctx.rc.db, [hash]);
  }
  await ctx.log(
    poster ? "info" : "warn",
    poster ? ru.tasks.log.videoPoster(source.asset.name) : ru.tasks.log.videoNoPoster(source.asset.name),
  );
  await ctx.log("info", ru.tasks.log.transcodeUnavailable);
  return poster ? { outcome: "made" } : { outcome: "skipped", reason: ru.tasks.log.videoNoPoster(source.asset.name) };
}

/** The previews of one file (its latest version), its preview stage recorded; a failure named in `state.failed`. */
async function previewOfItem(ctx: OperationContext<PreviewOptions>, id: string, state: PreviewState): Promise<Outcome["outcome"]> {
  const { asset, source } = await loadAssetSource(ctx.rc, id);
  if (!asset) await ctx.log("warn", ru.tasks.log.assetGone(id));
  else if (!source) await ctx.log("warn", ru.tasks.log.noOriginal(asset.name));
  if (!asset || !source) return "skipped";
  const mime = source.main.variant.mimeType.split(";")[0].trim().toLowerCase();
  let result: Outcome;
  if (mime.startsWith("image/")) result = await previewOfImageFile(ctx, source, mime);
  else if (mime.startsWith("video/")) result = await previewOfVideo(ctx, source);
  else if (mime.startsWith("audio/")) result = await previewOfAudio(ctx, source);
  else if (hasTextCard(mime, source.main.variant.fileName || asset.name)) result = await previewOfDocument(ctx, source);
  else {
    result = { outcome: "skipped", reason: ru.processing.noPreview(mime) };
    await ctx.log("info", ru.tasks.log.unsupportedType(asset.name, mime));
  }
  if (result.outcome === "failed") state.failed.push(asset.name);
  // The viewer's preview stage: done, not applicable or failed, with the reason.
  const stage: StageState =
    result.outcome === "made" ? { state: "done" } : { state: result.outcome === "failed" ? "failed" : "not_applicable", reason: result.reason };
  await runBatch(ctx.rc.db, [techFieldsPatch(ctx.rc.db, source.main.variant.id, {}, { preview: stage })]);
  return result.outcome;
}

/**
 * `preview`: previews in the sizes of the preview config for each asset (latest version), made with WebAssembly
 * codecs in the Worker (or by Cloudflare Images when bound, previewWithImagesBinding): JPEG, PNG and WebP are
 * decoded, resized (Lanczos3) to fit each size and stored as JPEG;
 * documents get a text card of their first lines (PNG, decision 029).
 * A corrupt image is logged and counted; the others go on, and the task ends as error if any failed.
 */
export const previewOperation: TaskOperation<PreviewOptions, PreviewState> = {
  ...previewSpec,
  async start() {
    return { index: 0, made: 0, failed: [] };
  },
  async step(ctx, state) {
    const ids = assetIdsOf(ctx.task.affected);
    const id = ids[state.index];
    let outcome: Outcome["outcome"] = "skipped";
    if (id) outcome = await inItemLibrary(ctx, id, (ctx) => previewOfItem(ctx, id, state));
    const next = { index: state.index + 1, made: state.made + (outcome === "made" ? 1 : 0), failed: state.failed };
    const done = next.index >= ids.length;
    return {
      state: next,
      done,
      progress: percent(next.index, ids.length),
      info: `${next.index} / ${ids.length}`,
      result: done ? { assets: ids.length, made: next.made, failed: next.failed.length } : undefined,
      failed: done && next.failed.length > 0 ? ru.tasks.log.someFailed(next.failed.length, ids.length) : null,
    };
  },
  async skipStuckItem(ctx, state, reason) {
    const id = assetIdsOf(ctx.task.affected)[state.index];
    const name = id ? await inItemLibrary(ctx, id, (ctx) => failStuckAsset(ctx, id, ["preview"], reason)) : null;
    return { index: state.index + 1, made: state.made, failed: name ? [...state.failed, name] : state.failed };
  },
};
