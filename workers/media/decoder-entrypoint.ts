import { WorkerEntrypoint } from "cloudflare:workers";
import { ru } from "../../shared/i18n/ru";
import { AppError } from "../lib/errors";
import { newId } from "../lib/ids";
import type { DecoderAnswer } from "../lib/decoder";
import { createRequestContext } from "../services/access";
import { renderWaveformPng } from "../services/imaging";
import { backendFor } from "../services/library";
import {
  checkPreviewImage,
  extractDocument,
  imageInfo,
  ParseLimitError,
  type ExtractedText,
  type ImageInfo,
  type PreviewMimeType,
  type PreviewSizeName,
} from "../services/media/decode";
import { watermarkedJpeg } from "../services/shop/decode";

/** Runs one decoding call; a refusal (AppError, a parser's ParseLimitError) is answered as a value the caller rethrows. */
async function answer<T>(work: () => Promise<T> | T): Promise<DecoderAnswer<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, code: error.code, message: error.message };
    if (error instanceof ParseLimitError) {
      return { ok: false, code: error.status === 413 ? "PAYLOAD_TOO_LARGE" : "UNPROCESSABLE_ENTITY", message: error.reason };
    }
    throw error;
  }
}

/**
 * The media Worker's decoding entrypoint (decision 032), bound by the API Worker as DECODER (wrangler.toml
 * `[[services]]`): every parse a request needs runs here, under the media Worker's CPU limit, so the API Worker links
 * no decoder (tests/unit/api-worker-graph.test.ts). The API Worker checks access and byte budgets first; objects in
 * storage are named by key and read here, never shipped across.
 */
export class DecoderEntrypoint extends WorkerEntrypoint<Env> {
  /** upload-preview and heals: the bytes' header type and size, checked (checkPreviewImage); at most 5 MiB crosses */
  previewImage(bytes: Uint8Array, mime: PreviewMimeType, box: { width: number; height: number } | null): Promise<DecoderAnswer<ImageInfo>> {
    return answer(() => checkPreviewImage(bytes, mime, box));
  }

  /** A browser's waveform peaks drawn as the PNG of a preview size. */
  waveformPng(peaks: number[], size: PreviewSizeName): Promise<DecoderAnswer<{ bytes: Uint8Array; width: number; height: number }>> {
    return answer(async () => {
      const bytes = await renderWaveformPng({ peaks }, size);
      const header = imageInfo(bytes);
      if (!header) throw new Error("generated preview has no image header");
      return { bytes, width: header.width, height: header.height };
    });
  }

  /**
   * WOPI `/text`: the text of a stored file, read from its storage here (an external one too, with the same
   * credentials a request would use). `maxBytes` is the caller's budget, checked again against the object read.
   */
  documentText(source: { storageId: string; storageKey: string; mimeType: string; fileName: string; maxBytes: number }): Promise<DecoderAnswer<ExtractedText>> {
    return answer(async () => {
      const rc = createRequestContext(this.env, (p) => this.ctx.waitUntil(p), `decoder-text-${newId()}`);
      const object = await (await backendFor(rc, source.storageId)).get(source.storageKey);
      if (!object?.body) throw new AppError("NOT_FOUND", ru.assets.contentMissing);
      if (object.size > source.maxBytes) {
        await object.body.cancel();
        throw new AppError("PAYLOAD_TOO_LARGE", ru.wopi.textTooLarge(source.maxBytes / 1024 / 1024));
      }
      const bytes = new Uint8Array(await new Response(object.body).arrayBuffer());
      return extractDocument(bytes, source.mimeType, source.fileName);
    });
  }

  /**
   * The shop's watermarked picture of a listed asset, made from its stored preview (`sourceKey`) and written to
   * `targetKey`. Null when there is no object at `sourceKey` or its type is none the codecs decode; a picture that
   * does not decode is an exception (the listing then goes on without one).
   */
  shopPreview(sourceKey: string, mime: string, targetKey: string): Promise<DecoderAnswer<{ width: number; height: number; size: number } | null>> {
    return answer(async () => {
      const object = await this.env.MEDIA.get(sourceKey);
      if (!object) return null;
      const jpeg = await watermarkedJpeg(mime, new Uint8Array(await object.arrayBuffer()));
      if (!jpeg) return null;
      const header = imageInfo(jpeg);
      if (!header) throw new Error("the watermarked preview has no JPEG header");
      await this.env.MEDIA.put(targetKey, jpeg, { httpMetadata: { contentType: "image/jpeg" } });
      return { width: header.width, height: header.height, size: jpeg.length };
    });
  }
}
