import { useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { playLink } from "../lib/library-api";
import { healPreview } from "../lib/heal-preview";
import { followVideoProxy, type ProxyState } from "../lib/video-proxy";
import { Icon } from "./icons";

/**
 * The player of a video this browser's `<video>` refused (decision 029, «The proxy maker»): the version's stored
 * proxy when it has one, else one made here (progress in the player area), stored for everyone and played at once;
 * or «Превью недоступно: <why>» when it cannot be made (a codec this browser does not decode, past a limit).
 */
export function VideoProxyStage({
  assetId,
  version,
  sourceLink,
  storedProxy,
  onMedia,
}: {
  assetId: string;
  version: number;
  /** the original's signed play link */
  sourceLink: string;
  /** the version's video `proxy_lowres` variant, when one is stored already */
  storedProxy: { id: string; mime: string } | null;
  onMedia?: (element: HTMLMediaElement | null) => void;
}) {
  const [state, setState] = useState<ProxyState>({ phase: "converting", percent: null });
  const storedId = storedProxy?.id ?? null;
  const storedMime = storedProxy?.mime ?? null;
  useEffect(() => {
    if (storedId && storedMime) {
      let alive = true;
      setState({ phase: "converting", percent: null });
      playLink(storedId, assetId)
        .then(({ link }) => alive && setState({ phase: "ready", link, variantId: storedId, mime: storedMime }))
        .catch(() => alive && setState({ phase: "failed", reason: ru.library.unreadableFormat }));
      return () => {
        alive = false;
      };
    }
    return followVideoProxy({ assetId, version, sourceLink }, setState);
  }, [assetId, version, sourceLink, storedId, storedMime]);
  // The original gave no poster or scrub strip either: they are made from the proxy now (heal on view, once per tab).
  const healFrom = state.phase === "ready" ? state.variantId : null;
  const healMime = state.phase === "ready" ? state.mime : null;
  // A pending proxy has no variant of its own yet: the poster is read through its play link.
  const healLink = state.phase === "ready" && state.pending ? state.link : undefined;
  useEffect(() => {
    if (healFrom && healMime) void healPreview({ assetId, version, variantId: healFrom, mime: healMime, sourceLink: healLink });
  }, [assetId, version, healFrom, healMime, healLink]);

  if (state.phase === "ready") {
    return (
      <div className="player player-video">
        <video ref={onMedia} src={state.link} controls autoPlay playsInline preload="auto" data-testid="video-player" data-proxy="true" />
      </div>
    );
  }
  if (state.phase === "failed") {
    return (
      <div className="player player-empty" data-testid="preview-unavailable">
        <Icon name="video" size={56} />
        <span>{ru.library.previewUnavailable(state.reason)}</span>
      </div>
    );
  }
  const percent = state.phase === "converting" ? state.percent : 100;
  return (
    <div className="player player-empty video-proxy-progress" data-testid="video-proxy-progress" aria-live="polite">
      <Icon name="video" size={56} />
      <span className="video-proxy-title">
        {state.phase === "uploading"
          ? ru.library.videoProxy.uploading
          : percent === null
          ? ru.library.videoProxy.starting
          : ru.library.videoProxy.converting(percent)}
      </span>
      <progress max={100} value={percent ?? undefined} aria-label={ru.library.videoProxy.starting} />
      <span className="muted">{ru.library.videoProxy.hint}</span>
    </div>
  );
}
