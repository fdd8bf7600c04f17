/**
 * Which level a rendition of a file needs (decision record 007, "Levels that mean what their names say"): the
 * renditions made for looking at a file on screen (proxies, the watermarked copy) need `read`, the original bytes
 * (initial, master, untyped) need `download`. Previews are always `read`.
 */
import type { VariantType } from "../../db/schema/variants";

/** Screen renditions, best first for viewing. */
export const SCREEN_VARIANT_TYPES: readonly VariantType[] = ["proxy_lowres", "proxy_highres", "watermarked"];

/** The level a variant of this type needs to be played or fetched. */
export function variantLevel(type: VariantType): "read" | "download" {
  return SCREEN_VARIANT_TYPES.includes(type) ? "read" : "download";
}
