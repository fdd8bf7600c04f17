/**
 * Comments and notifications (decision 035): comments pinned to a spot, a moment or a page of a file version, who
 * follows a file, the inbox made from the event log by its own dispatcher, live delivery and e-mail digests.
 *
 * The domain's public face (decision record 025): code outside workers/services/comments/ imports only this file.
 */
export { AnchorSchema, excerptOf, loginCandidates, mentionTokens } from "./anchor";
export type { Anchor } from "./anchor";
export { MAX_MENTIONS, createComment, deleteComment, editComment, resolveComment, setFollow } from "./comment.service";
export { commentListText, listAssetComments } from "./comment-list.service";
export type { CommentView } from "./comment.service";
export { deliverNotifications } from "./notification-dispatch.service";
export type { DispatchStep, NotificationKind, NotificationReport } from "./notification-dispatch.service";
export { openInboxStream } from "./notification-hub";
export {
  DIGEST_INTERVAL_MS,
  listNotifications,
  notificationSettings,
  putNotificationSettings,
  readNotifications,
  sendDueDigests,
} from "./notification.service";
