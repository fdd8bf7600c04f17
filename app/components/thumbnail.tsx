import { useEffect, useRef, useState } from "react";
import { apiBlobUrl } from "../lib/api-client";
import { mediaKind } from "../lib/media-kind";
import { Icon } from "./icons";

/**
 * A member's preview: the preview image when the asset has one (fetched with the bearer once it scrolls into
 * view), otherwise an icon for its kind of media; folders get the folder icon.
 */
export function Thumbnail({
  type,
  mime,
  preview,
  size = 40,
}: {
  type: "asset" | "group";
  mime?: string | null;
  preview?: string | null;
  size?: number;
}) {
  const [src, setSrc] = useState<string | null>(null);
  const ref = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (!preview || !ref.current) return;
    const controller = new AbortController();
    let url: string | null = null;
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      apiBlobUrl(preview, controller.signal)
        .then((u) => {
          url = u;
          setSrc(u);
        })
        .catch(() => undefined);
    });
    observer.observe(ref.current);
    return () => {
      observer.disconnect();
      controller.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [preview]);
  const kind = type === "group" ? "folder" : mediaKind(mime);
  return (
    <span ref={ref} className={`thumb thumb-${kind}`} style={{ width: size, height: size }}>
      {src ? (
        <img src={src} alt="" />
      ) : (
        <Icon name={kind} size={Math.round(size * 0.45)} className={kind === "folder" ? "folder-icon" : undefined} />
      )}
    </span>
  );
}
