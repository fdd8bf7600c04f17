import { useEffect, useRef, useState } from "react";
import { apiBlobUrl, apiRequest } from "../lib/api-client";
import { STRIP_FRAMES } from "../lib/browser-previews";
import { healPreview, type HealTarget } from "../lib/heal-preview";
import { mediaKind } from "../lib/media-kind";
import { Icon } from "./icons";

/** A video's strip link: the thumb link with the `strip` kind (the signature is for the asset, not the size). */
export function stripLink(preview: string): string | null {
  const at = preview.search(/\/thumb(\?|$)/);
  return at < 0 ? null : `${preview.slice(0, at)}/strip${preview.slice(at + "/thumb".length)}`;
}

/** A freshly listed thumb link of one asset, once a heal has made it. */
async function thumbLink(assetId: string): Promise<string | null> {
  const { list } = await apiRequest<{ list: { asset_id: string; preview: string | null }[] }>("/api/asset/content/preview-by-list", {
    method: "POST",
    body: { ids: [assetId], size: "thumb" },
    toast: false,
  });
  return list[0]?.preview ?? null;
}

/** Draws frame `index` of a strip over the whole canvas, cropped to cover it like the thumbnail's `object-fit`. */
function drawFrame(canvas: HTMLCanvasElement, strip: HTMLImageElement, index: number) {
  const fw = strip.naturalWidth / STRIP_FRAMES;
  const fh = strip.naturalHeight;
  const box = canvas.getBoundingClientRect();
  canvas.width = Math.max(1, Math.round(box.width));
  canvas.height = Math.max(1, Math.round(box.height));
  const scale = Math.max(canvas.width / fw, canvas.height / fh);
  const sw = canvas.width / scale;
  const sh = canvas.height / scale;
  canvas.getContext("2d")?.drawImage(strip, index * fw + (fw - sw) / 2, (fh - sh) / 2, sw, sh, 0, 0, canvas.width, canvas.height);
}

/**
 * Hover scrubbing of a video tile: the pointer's x picks one of the strip's frames. The strip is fetched on the
 * first hover; a video without one gets it healed (when `heal` is given) and scrubs from the next hover on.
 */
function useScrub(strip: string | null, heal: HealTarget | null | undefined) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const image = useRef<HTMLImageElement | null>(null);
  const state = useRef<"idle" | "loading" | "ready" | "missing">("idle");
  const [frame, setFrame] = useState<number | null>(null);
  useEffect(
    () => () => {
      if (image.current) URL.revokeObjectURL(image.current.src);
    },
    [],
  );
  if (!strip) return { canvas, frame: null, handlers: {} };
  const show = (x: number, width: number) => {
    if (state.current !== "ready" || !image.current || !canvas.current) return;
    const index = Math.min(STRIP_FRAMES - 1, Math.max(0, Math.floor((x / Math.max(1, width)) * STRIP_FRAMES)));
    drawFrame(canvas.current, image.current, index);
    setFrame(index);
  };
  const load = (x: number, width: number) => {
    if (state.current !== "idle") return;
    state.current = "loading";
    apiBlobUrl(strip)
      .then((url) => {
        if (!url) {
          state.current = "missing";
          if (heal) void healPreview(heal, { thumb: false, strip: true, page: false });
          return;
        }
        const img = new Image();
        img.onload = () => {
          image.current = img;
          state.current = "ready";
          show(x, width);
        };
        img.src = url;
      })
      .catch(() => (state.current = "idle"));
  };
  const handlers = {
    onPointerEnter: (e: React.PointerEvent<HTMLElement>) => {
      const box = e.currentTarget.getBoundingClientRect();
      load(e.clientX - box.left, box.width);
    },
    onPointerMove: (e: React.PointerEvent<HTMLElement>) => {
      const box = e.currentTarget.getBoundingClientRect();
      show(e.clientX - box.left, box.width);
    },
    onPointerLeave: () => setFrame(null),
  };
  return { canvas, frame, handlers };
}

/**
 * A member's preview: the preview image when the asset has one (fetched with the bearer once it scrolls into
 * view), otherwise an icon for its kind of media; folders get the folder icon. With `heal`, a file without a
 * preview that this browser can decode gets one made when it is seen (decision 029); with `scrub`, a video's tile
 * shows the frame under the pointer.
 */
/** How long a replaced thumbnail's blob URL is kept before it is revoked. */
const BLOB_GRACE_MS = 5_000;

export function Thumbnail({
  type,
  mime,
  preview,
  size = 40,
  heal,
  scrub = false,
}: {
  type: "asset" | "group";
  mime?: string | null;
  preview?: string | null;
  size?: number;
  /** the file to heal when it has no preview and scrolls into view */
  heal?: HealTarget | null;
  /** hover scrubbing for a video with a strip */
  scrub?: boolean;
}) {
  const [src, setSrc] = useState<string | null>(null);
  const [link, setLink] = useState<string | null | undefined>(preview);
  const ref = useRef<HTMLSpanElement>(null);
  const healKey = heal ? `${heal.assetId}:${heal.version}` : null;
  useEffect(() => setLink(preview), [preview]);
  useEffect(() => {
    if (!ref.current || (!link && !healKey)) return;
    const controller = new AbortController();
    let url: string | null = null;
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      if (!link) {
        // Seen without a preview: this browser makes one if it can, then shows it.
        if (heal)
          void healPreview(heal).then(async (outcome) => {
            // «nothing»: the server has a thumb for this viewer after all — his own heal awaiting acceptance, which
            // the folder listing (shared pictures only) does not carry, or one stored meanwhile.
            if ((outcome === "healed" || outcome === "nothing") && !controller.signal.aborted) setLink(await thumbLink(heal.assetId));
          });
        return;
      }
      apiBlobUrl(link, controller.signal)
        .then((u) => {
          if (controller.signal.aborted) {
            if (u) URL.revokeObjectURL(u);
            return;
          }
          url = u;
          setSrc(u);
        })
        .catch(() => undefined);
    });
    observer.observe(ref.current);
    return () => {
      observer.disconnect();
      controller.abort();
      if (!url) return;
      setSrc(null);
      // Revoked once the <img> has let go of it: revoking while it still loads logs «ERR_FILE_NOT_FOUND».
      const stale = url;
      setTimeout(() => URL.revokeObjectURL(stale), BLOB_GRACE_MS);
    };
    // `heal` is identified by its key: a new object for the same file must not restart the observer.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [link, healKey]);
  const kind = type === "group" ? "folder" : mediaKind(mime);
  const { canvas, frame, handlers } = useScrub(scrub && kind === "video" && link ? stripLink(link) : null, heal);
  return (
    <span
      ref={ref}
      className={`thumb thumb-${kind}`}
      style={{ width: size, height: size }}
      data-scrub-frame={frame ?? undefined}
      {...handlers}
    >
      {src ? (
        <img src={src} alt="" />
      ) : (
        <Icon name={kind} size={Math.round(size * 0.45)} className={kind === "folder" ? "folder-icon" : undefined} />
      )}
      {scrub && kind === "video" && <canvas ref={canvas} className="thumb-scrub" hidden={frame === null} />}
    </span>
  );
}
