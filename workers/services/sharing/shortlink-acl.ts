/**
 * What a shortlink lets its visitors do, as names (the API) and as a bitmask (the table). Viewing is always
 * included; `download` is the original, `download_proxy` a lighter proxy rendition. Pure: shared by the API's
 * zod schema, the service and the share dialog.
 */
export const SHARE_ACL = ["read", "download", "download_proxy"] as const;
export type ShareAcl = (typeof SHARE_ACL)[number];

const BITS: Record<ShareAcl, number> = { read: 1, download: 2, download_proxy: 4 };

/** The bitmask of a list of rights; viewing is implied by any of them. */
export function aclMask(acl: readonly ShareAcl[]): number {
  return acl.reduce((mask, a) => mask | BITS[a], BITS.read);
}

/** The rights of a bitmask, in SHARE_ACL order. */
export function aclNames(mask: number): ShareAcl[] {
  return SHARE_ACL.filter((a) => (mask & BITS[a]) !== 0);
}

export function allows(mask: number, acl: ShareAcl): boolean {
  return (mask & BITS[acl]) !== 0;
}

/** Whether any download right is in the mask (the creator then needs `download` on the item). */
export function wantsDownload(mask: number): boolean {
  return (mask & (BITS.download | BITS.download_proxy)) !== 0;
}

/** Rights without the download bits: what a link keeps when its creator no longer may download. */
export function viewOnly(mask: number): number {
  return mask & BITS.read;
}
