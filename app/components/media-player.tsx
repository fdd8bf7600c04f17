import { useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { mediumPreviewLink, playLink } from "../lib/library-api";
import { mediaKind } from "../lib/media-kind";
import { Icon } from "./icons";
import { ImageStage } from "./image-stage";

const TEXT_PREVIEW_BYTES = 512 * 1024;

/**
 * Shows a variant the way its type wants: image, HTML5 video or audio (the signed link supports Range, so seeking
 * works), PDF in the browser's viewer, the start of a text file; anything else gets an icon.
 * With `screen` (a caller holding `read` but not `download`) it shows the file at screen quality instead: its screen
 * rendition (a proxy) when it has one, else for an image its 1280 px preview, else the reason — never a request the
 * server would refuse.
 */
export function MediaPlayer({
  variantId,
  mime,
  name,
  onMedia,
  refused = null,
  screen = null,
}: {
  variantId: string | null;
  /** why the caller may not play the bytes: the reason is shown and no link is asked for */
  refused?: string | null;
  /** screen quality only: the asset and its screen rendition (null when it has none) */
  screen?: { assetId: string; variantId: string | null } | null;
  mime: string;
  name: string;
  /** receives the video or audio element (the metadata timeline follows and seeks it) */
  onMedia?: (element: HTMLMediaElement | null) => void;
}) {
  const [link, setLink] = useState<string | null>(null);
  const [text, setText] = useState<string | null>(null);
  const [screenMissing, setScreenMissing] = useState(false);
  const kind = mediaKind(mime);
  const screenAsset = screen?.assetId ?? null;
  const screenVariant = screen ? screen.variantId : undefined;
  useEffect(() => {
    setLink(null);
    setText(null);
    setScreenMissing(false);
    if (!variantId || kind === "other" || refused) return;
    let alive = true;
    if (screenAsset && !screenVariant) {
      // No screen rendition: an image shows its medium preview; anything else says why nothing plays.
      if (kind !== "image") {
        setScreenMissing(true);
        return;
      }
      mediumPreviewLink(screenAsset)
        .then((preview) => alive && (preview ? setLink(preview) : setScreenMissing(true)))
        .catch(() => alive && setScreenMissing(true));
      return () => {
        alive = false;
      };
    }
    playLink(screenVariant ?? variantId)
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
  }, [variantId, kind, refused, screenAsset, screenVariant]);

  if (!variantId) return <div className="player player-empty">{ru.library.noBytes}</div>;
  if (refused || screenMissing) {
    return (
      <div className="player player-empty" data-testid="player-refused">
        <Icon name="lock" size={40} />
        <span>{refused ?? ru.rights.screenCopyMissing}</span>
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
