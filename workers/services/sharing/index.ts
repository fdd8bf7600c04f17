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
  closedError,
  createShortlink,
  formatMoment,
  isClosed,
  linksForEntity,
  listActiveLinks,
  openShortlink,
  revokeShortlink,
  shortlinkMedia,
  unlockCookieName,
  unlockShortlink,
  updateShortlink,
} from "./shortlink.service";
export type { MediaKind, SharedAsset, SharedInfo, ShortlinkView } from "./shortlink.service";
