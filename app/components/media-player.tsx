import { useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { playLink } from "../lib/library-api";
import { mediaKind } from "../lib/media-kind";
import { Icon } from "./icons";
import { ImageStage } from "./image-stage";

const TEXT_PREVIEW_BYTES = 512 * 1024;

/**
 * Shows a variant the way its type wants: image, HTML5 video or audio (the signed link supports Range, so seeking
 * works), PDF in the browser's viewer, the start of a text file; anything else gets an icon.
 */
export function MediaPlayer({
  variantId,
  mime,
  name,
  onMedia,
  refused = null,
}: {
  variantId: string | null;
  /** why the caller may not play the bytes (no download level): the reason is shown and no link is asked for */
  refused?: string | null;
  mime: string;
  name: string;
  /** receives the video or audio element (the metadata timeline follows and seeks it) */
  onMedia?: (element: HTMLMediaElement | null) => void;
}) {
  const [link, setLink] = useState<string | null>(null);
  const [text, setText] = useState<string | null>(null);
  const kind = mediaKind(mime);
  useEffect(() => {
    setLink(null);
    setText(null);
    if (!variantId || kind === "other" || refused) return;
    let alive = true;
    playLink(variantId)
      .then(async ({ link }) => {
        if (!alive) return;
        setLink(link);
        if (kind === "text") {
          const response = await fetch(link, { headers: { range: `bytes=0-${TEXT_PREVIEW_BYTES - 1}` } });
          if (alive && response.ok) setText(await response.text());
        }
      })
      .catch(() => undefined);
    return () => {
      alive = false;
    };
  }, [variantId, kind, refused]);

  if (!variantId) return <div className="player player-empty">{ru.library.noBytes}</div>;
  if (refused) {
    return (
      <div className="player player-empty">
        <Icon name="lock" size={40} />
        <span>{refused}</span>
      </div>
    );
  }
  if (kind === "other" || !link) {
    return (
      <div className="player player-empty">
        <Icon name={kind} size={56} />
        {kind === "other" && <span>{ru.library.noPreview}</span>}
      </div>
    );
  }
  return (
    <div className={`player player-${kind}`}>
      {kind === "image" && <ImageStage src={link} alt={name} />}
      {kind === "video" && <video ref={onMedia} src={link} controls preload="metadata" data-testid="video-player" />}
      {kind === "audio" && <audio ref={onMedia} src={link} controls preload="metadata" />}
      {kind === "pdf" && <iframe src={link} title={name} />}
      {kind === "text" && <pre className="text-preview">{text ?? ru.common.loading}</pre>}
    </div>
  );
}
