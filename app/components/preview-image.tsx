import { useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { mediumPreviewLink } from "../lib/library-api";
import { Icon } from "./icons";
import { ImageStage } from "./image-stage";

/**
 * An image the browser cannot draw itself (TIFF, RAW, HEIC, PSD …) shown from its largest preview, with the
 * viewer's zoom: pointing `<img>` at the original would draw a broken image. Needs only `read` (the preview), so a
 * reader without `download` sees the same picture. Without a preview yet it says so.
 */
export function PreviewImage({ assetId, name }: { assetId: string; name: string }) {
  const [src, setSrc] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let alive = true;
    setSrc(undefined);
    mediumPreviewLink(assetId).then(
      (link) => alive && setSrc(link),
      () => alive && setSrc(null),
    );
    return () => {
      alive = false;
    };
  }, [assetId]);
  if (src === undefined) return <div className="player player-empty">{ru.common.loading}</div>;
  if (src === null) {
    return (
      <div className="player player-empty" data-testid="preview-unavailable">
        <Icon name="image" size={56} />
        <span>{ru.viewerTypes.noPreviewYet}</span>
      </div>
    );
  }
  return (
    <div className="player player-image" data-testid="preview-image" title={ru.viewerTypes.fromPreview}>
      <ImageStage src={src} alt={name} />
    </div>
  );
}
