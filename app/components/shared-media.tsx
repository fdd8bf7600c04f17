import { useEffect, useRef, useState } from "react";
import { ru } from "../i18n/ru";
import { formatBytes, mediaKind } from "../lib/media-kind";
import type { SharedAsset } from "../../workers/services/sharing";
import { Icon } from "./icons";

const TEXT_PREVIEW_BYTES = 64 * 1024;

/**
 * An asset of a shortlink, shown the way its type wants: image, video or audio (the link's media URL supports
 * Range, so seeking works), PDF in the browser's viewer, the start of a text file; with its name, size and the
 * download buttons the link allows. Every URL is the link's own signed one (no bearer anywhere).
 */
export function SharedMedia({ asset, inDialog }: { asset: SharedAsset; inDialog?: boolean }) {
  const kind = mediaKind(asset.mimetype);
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    if (kind !== "text") return;
    let alive = true;
    fetch(asset.media_url, { headers: { range: `bytes=0-${TEXT_PREVIEW_BYTES - 1}` } })
      .then(async (r) => alive && r.ok && setText(await r.text()))
      .catch(() => undefined);
    return () => {
      alive = false;
    };
  }, [asset.media_url, kind]);
  return (
    <div className="shared-asset">
      <div className={`player shared-player player-${kind}`}>
        {kind === "image" && <img src={asset.media_url} alt={asset.name} />}
        {kind === "video" && <video src={asset.media_url} controls preload="metadata" playsInline data-testid="shared-video" />}
        {kind === "audio" && <audio src={asset.media_url} controls preload="metadata" />}
        {kind === "pdf" && <iframe src={asset.media_url} title={asset.name} />}
        {kind === "text" && <pre className="text-preview">{text ?? ru.common.loading}</pre>}
        {kind === "other" && asset.preview_url && <img src={asset.preview_url} alt={asset.name} data-testid="shared-document-preview" />}
        {kind === "other" && !asset.preview_url && (
          <div className="player-empty">
            <Icon name="other" size={56} />
            <span>{ru.sharing.noPreview}</span>
          </div>
        )}
      </div>
      <div className="shared-meta">
        <div>
          {!inDialog && <div className="shared-name">{asset.name}</div>}
          <div className="muted">
            {ru.sharing.size}: {formatBytes(asset.size)}
          </div>
        </div>
        <div className="shared-actions">
          {asset.download_url && (
            <a className="btn btn-primary" href={asset.download_url} download={asset.name} data-testid="shared-download">
              <Icon name="download" size={16} />
              {ru.sharing.download}
            </a>
          )}
          {asset.proxy_download_url && !asset.download_url && (
            <a className="btn" href={asset.proxy_download_url} download>
              <Icon name="download" size={16} />
              {ru.sharing.downloadProxy}
            </a>
          )}
        </div>
      </div>
    </div>
  );
}

/**
 * A thumbnail tile of a shared folder: the preview when there is one, else the type's icon (no request is made for
 * a preview the asset does not have).
 */
export function SharedTile({ asset, onOpen }: { asset: SharedAsset; onOpen: () => void }) {
  const [failed, setFailed] = useState(!asset.thumb_url);
  const img = useRef<HTMLImageElement>(null);
  const kind = mediaKind(asset.mimetype);
  // A thumbnail that failed before hydration fired its error event before React listened: check once mounted.
  useEffect(() => {
    if (img.current?.complete && img.current.naturalWidth === 0) setFailed(true);
  }, []);
  return (
    <button type="button" className="shared-tile" onClick={onOpen} title={asset.name}>
      <span className="shared-thumb">
        {failed ? <Icon name={kind} size={40} /> : <img ref={img} src={asset.thumb_url ?? undefined} alt="" loading="lazy" onError={() => setFailed(true)} />}
        {!failed && (kind === "video" || kind === "audio") && (
          <span className="shared-kind" aria-hidden="true">
            <Icon name={kind} size={14} />
          </span>
        )}
      </span>
      <span className="shared-tile-name">{asset.name}</span>
      <span className="shared-tile-meta">{formatBytes(asset.size)}</span>
    </button>
  );
}
