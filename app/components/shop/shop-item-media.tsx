import { Icon } from "../icons";
import { mediaKind } from "../../lib/media-kind";

/** The picture of a shop item: its watermarked preview, or the icon of its kind (folders, files without one). */
export function ShopItemMedia({
  url,
  type,
  mimetype,
  name,
}: {
  url: string | null;
  type: "asset" | "group" | null;
  mimetype?: string | null;
  name: string;
}) {
  if (url) return <img className="shop-media-img" src={url} alt={name} loading="lazy" />;
  if (type === "group") return <Icon name="folder" size={44} className="folder-icon" />;
  const kind = mediaKind(mimetype);
  return <Icon name={kind === "other" ? "other" : kind} size={40} className={`thumb-${kind}`} />;
}
