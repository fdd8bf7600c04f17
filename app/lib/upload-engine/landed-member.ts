import type { GroupMember } from "../library-api";
import type { UploadItem } from "./types";

/** MIME types by file extension, for a file the browser queued (the queue keeps no MIME type). */
export const EXTENSION_MIME: Record<string, string> = {
  jpg: "image/jpeg", jpeg: "image/jpeg", png: "image/png", gif: "image/gif", webp: "image/webp", heic: "image/heic", tif: "image/tiff", tiff: "image/tiff",
  mp4: "video/mp4", mov: "video/quicktime", mkv: "video/x-matroska", avi: "video/x-msvideo", webm: "video/webm", mxf: "video/mxf",
  mp3: "audio/mpeg", wav: "audio/wav", flac: "audio/flac", aac: "audio/aac", ogg: "audio/ogg",
  pdf: "application/pdf", txt: "text/plain", csv: "text/csv", json: "application/json", xml: "application/xml", md: "text/markdown",
};

/** The MIME type a file name suggests ("application/octet-stream" when unknown). */
export function mimeOfName(name: string): string {
  const ext = name.includes(".") ? name.split(".").pop()!.toLowerCase() : "";
  return EXTENSION_MIME[ext] ?? "application/octet-stream";
}

/**
 * A just-committed upload as its folder's grid shows it until the listing's own row arrives (issue 28: the tile
 * appears when the file commits, without reloading the folder). Built from the queue item and the commit's answer;
 * the thumbnail and owner come with the targeted re-read that replaces it.
 */
export function landedMember(item: Pick<UploadItem, "fileName" | "size">, assetId: string, variantId: string, now = new Date()): GroupMember {
  const at = now.toISOString();
  return {
    el_id: assetId,
    el_type: "asset",
    el_info: {
      name: item.fileName,
      mimetype: mimeOfName(item.fileName),
      ctime: at,
      mtime: at,
      ver: 1,
      var: variantId,
      var_size: item.size,
      var_hash: null,
      owner: "",
      owner_name: null,
      preview: null,
      tags: [],
      review_status: null,
      comments: { total: 0, open: 0 },
    },
  };
}
