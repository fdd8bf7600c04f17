/**
 * Sharing: short links (public and protected) and outgoing email.
 *
 * The domain's public face (decision record 025): code outside workers/services/sharing/ imports only this file or
 * ./pure.
 */
export { sendEmail } from "./email.service";
export {
  MAX_PASSWORD_LENGTH,
  MAX_RECIPIENTS,
  createShortlink,
  formatMoment,
  linkCreator,
  linksForEntity,
  listActiveLinks,
  revokeShortlink,
  unlockCookieName,
  updateShortlink,
} from "./shortlink.service";
export { closedError, isClosed, openShortlink, unlockAndOpen, unlockLink } from "./shortlink-open.service";
export { sharedMediaTarget, shortlinkMedia, type MediaTarget, type MediaTargetRead } from "./shortlink-media.service";
export { CACHE_STATUS_HEADER, cachedSharedInfo, cachedSharedPage, cachedShortlinkMedia, storeSharedInfo, type CacheStatus } from "./shortlink-cache.service";
export { sharedZipPlan, shortlinkZip, type SharedZipRead } from "./shortlink-zip.service";
export type { ClosedState, LinkView, MediaKind, SharedAsset, SharedFolder, SharedFolderPage, SharedInfo, Unlocked, UnlockedPage } from "./shortlink-open.service";
export type { ShortlinkView, Visitor } from "./shortlink.service";
