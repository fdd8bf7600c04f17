import { ru } from "../../../shared/i18n/ru";
import { AppError } from "../../lib/errors";
import { MAX_PREVIEW_UPLOAD_PIXELS } from "./extract/limits";
import { ParseLimitError } from "./extract/parse-limit";
import { gifFrames } from "./gif-frames";
import { imageInfo, type ImageInfo } from "./image-info";
import type { PreviewMimeType } from "./preview.service";

/**
 * The checks of a browser-made preview (upload-preview, heals), in the media Worker (decision 032): the bytes must be
 * an image of the declared type (400), at most MAX_PREVIEW_UPLOAD_PIXELS (413), inside `box` when one is given (a
 * heal, a strip: 400), and a GIF within its frame limit (413). Answers the header's type and size.
 */
export function checkPreviewImage(bytes: Uint8Array, mime: PreviewMimeType, box: { width: number; height: number } | null): ImageInfo {
  const info = imageInfo(bytes);
  if (!info || info.mime !== mime) throw new AppError("BAD_REQUEST", ru.catalog.previewCorrupt(mime));
  // Judged from the header before it is stored: a preview that would be a decoding bomb in every viewer's browser.
  if (info.width * info.height > MAX_PREVIEW_UPLOAD_PIXELS) {
    throw new AppError(
      "PAYLOAD_TOO_LARGE",
      ru.parse.tooComplex(ru.parse.pixels(info.width, info.height, Math.round(MAX_PREVIEW_UPLOAD_PIXELS / 1e6))),
    );
  }
  // A healer is anyone who may look: what they store must be no bigger than what the Worker would have made.
  if (box && (info.width > box.width || info.height > box.height)) {
    throw new AppError("BAD_REQUEST", ru.catalog.previewOutOfBounds(info.width, info.height, box.width, box.height));
  }
  if (info.mime === "image/gif") {
    try {
      gifFrames(bytes);
    } catch (error) {
      if (error instanceof ParseLimitError) throw new AppError("PAYLOAD_TOO_LARGE", error.reason);
      throw error;
    }
  }
  return info;
}
