import { useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { apiBlobUrl, apiRequest } from "../lib/api-client";
import { mediumPreviewLink, playLink } from "../lib/library-api";
import { mediaKind } from "../lib/media-kind";
import { drawsNatively } from "../lib/browser-images";
import { TextPreview } from "./text-preview";
import { PreviewImage } from "./preview-image";
import { Icon } from "./icons";
import { ImageStage } from "./image-stage";
import { VideoProxyStage } from "./video-proxy-stage";

const TEXT_PREVIEW_BYTES = 512 * 1024;

/**
 * The stream link with the file's own name as its last path segment: browsers' PDF viewers title a document by its
 * URL's last segment, which otherwise is the variant id (the route ignores the name).
 */
export function namedLink(link: string, name: string): string {
  const at = link.indexOf("?");
  const [path, query] = at < 0 ? [link, ""] : [link.slice(0, at), link.slice(at)];
  return `${path}/${encodeURIComponent(name)}${query}`;
}

/**
 * A file the browser cannot show itself (office documents and others): its medium preview when its preview stage
 * is done (a text card for documents, decision 029), else «Превью недоступно: <why>» from the stage.
 */
function DocumentPreview({ assetId, version, variantId, kind }: { assetId: string; version: number; variantId: string; kind: string }) {
  const [state, setState] = useState<{ src: string | null; why: string | null } | null>(null);
  useEffect(() => {
    setState(null);
    const controller = new AbortController();
    let src: string | null = null;
    apiRequest<{ processing?: { preview?: { state: string; reason?: string | null } } }>(`/api/asset/tech-fields/${assetId}/${variantId}`, {
      toast: false,
    })
      .then(async (fields) => {
        const stage = fields.processing?.preview;
        if (stage?.state === "done") {
          src = await apiBlobUrl(`/api/asset/content/preview/${assetId}/${version}/medium`, controller.signal);
          if (!controller.signal.aborted) setState({ src, why: null });
        } else if (!controller.signal.aborted) setState({ src: null, why: stage?.reason ?? null });
      })
      .catch(() => !controller.signal.aborted && setState({ src: null, why: null }));
    return () => {
      controller.abort();
      if (src) URL.revokeObjectURL(src);
    };
  }, [assetId, version, variantId]);
  if (state?.src) {
    return (
      <div className="player player-document" data-testid="document-preview">
        <img src={state.src} alt="" />
      </div>
    );
  }
  return (
    <div className="player player-empty">
      <Icon name={kind === "other" ? "other" : "text"} size={56} />
      {state && <span data-testid="preview-unavailable">{state.why ? ru.library.previewUnavailable(state.why) : ru.library.noPreview}</span>}
    </div>
  );
}

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
  asset,
  videoProxy = null,
}: {
  /** the version's stored video `proxy_lowres`, played when the browser refuses the original (decision 029) */
  videoProxy?: { id: string; mime: string } | null;
  variantId: string | null;
  /** the asset and version, for the preview of a file the browser cannot show */
  asset?: { id: string; version: number };
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
  const [text, setText] = useState<{ body: string; cut: boolean } | null>(null);
  const [screenMissing, setScreenMissing] = useState(false);
  // The browser could not decode the video or audio (a codec or container it lacks: ProRes, MXF, AVI, HEVC …).
  const [unreadable, setUnreadable] = useState(false);
  const kind = mediaKind(mime);
  // TIFF, RAW, HEIC, PSD …: the browser cannot draw the original, its preview is shown instead.
  const fromPreview = kind === "image" && !drawsNatively(mime) && asset !== undefined;
  const screenAsset = screen?.assetId ?? null;
  const screenVariant = screen ? screen.variantId : undefined;
  useEffect(() => {
    setLink(null);
    setText(null);
    setScreenMissing(false);
    setUnreadable(false);
    if (!variantId || kind === "other" || refused || fromPreview) return;
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
    playLink(screenVariant ?? variantId, screenAsset ?? asset?.id)
      .then(async ({ link }) => {
        if (!alive) return;
        setLink(link);
        if (kind === "text") {
          const response = await fetch(link, { headers: { range: `bytes=0-${TEXT_PREVIEW_BYTES - 1}` } });
          // A 206 naming a larger total: only the file's start is shown (a table says so).
          const total = Number(response.headers.get("content-range")?.split("/")[1]);
          if (alive && response.ok) setText({ body: await response.text(), cut: Number.isFinite(total) && total > TEXT_PREVIEW_BYTES });
        }
      })
      .catch(() => undefined);
    return () => {
      alive = false;
    };
  }, [variantId, kind, refused, screenAsset, screenVariant, fromPreview, asset?.id]);

  if (!variantId) return <div className="player player-empty">{ru.library.noBytes}</div>;
  // A document's card needs only `read`, so it is shown before any refusal of the original's bytes.
  if (kind === "other" && asset) return <DocumentPreview assetId={asset.id} version={asset.version} variantId={variantId} kind={kind} />;
  if (fromPreview && asset) return <PreviewImage assetId={asset.id} name={name} />;
  if (refused || screenMissing) {
    return (
      <div className="player player-empty" data-testid="player-refused">
        <Icon name="lock" size={40} />
        <span>{refused ?? ru.rights.screenCopyMissing}</span>
      </div>
    );
  }
  // A video the browser refuses is converted here into a proxy (or its stored proxy is played): «The proxy maker».
  if (unreadable && kind === "video" && asset && link && !screenAsset) {
    return <VideoProxyStage assetId={asset.id} version={asset.version} sourceLink={link} storedProxy={videoProxy} onMedia={onMedia} />;
  }
  if (unreadable) {
    return (
      <div className="player player-empty" data-testid="preview-unavailable">
        <Icon name={kind} size={56} />
        <span>{ru.library.previewUnavailable(ru.library.unreadableFormat)}</span>
      </div>
    );
  }
  const failed = (e: React.SyntheticEvent<HTMLMediaElement>) => {
    const code = e.currentTarget.error?.code;
    if (code === MediaError.MEDIA_ERR_SRC_NOT_SUPPORTED || code === MediaError.MEDIA_ERR_DECODE) setUnreadable(true);
  };
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
      {kind === "video" && <video ref={onMedia} src={link} controls preload="metadata" data-testid="video-player" onError={failed} />}
      {kind === "audio" && <audio ref={onMedia} src={link} controls preload="metadata" onError={failed} />}
      {kind === "pdf" && <iframe src={namedLink(link, name)} title={name} />}
      {kind === "text" && (text ? <TextPreview source={text.body} cut={text.cut} mime={mime} name={name} /> : <pre className="text-preview">{ru.common.loading}</pre>)}
    </div>
  );
}
