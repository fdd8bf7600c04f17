/**
 * Access: who is calling (request context), users, groups of users, sign-in (passwords, refresh cookies, robot
 * tokens, SSO), access rules and the policy that folds them into a level, and the audit log.
 *
 * The domain's public face (decision record 025): code outside workers/services/access/ imports only this file or
 * ./pure.
 */
export {
  aclAccess,
  callerAccess,
  changeRules,
  createRule,
  deleteRule,
  getInheritance,
  getRule,
  rulesOfGroup,
  rulesOfSubjectsPage,
  rulesOfUser,
  rulesOnEntity,
  setInheritance,
  updateRule,
  userAccess,
} from "./access-rules.service";
export type { RulesPage } from "./access-rules.service";
export {
  ACCESS_LEVELS,
  ACCESS_LEVEL_TITLES,
  accessibleIds,
  canAccess,
  entityLevels,
  entityMask,
  forgetCallers,
  hasAnyRules,
  passesReadDown,
  prefetchAccess,
  readRuleNodes,
  requireEntityAccess,
  userAbilities,
  visibility,
  wantRuleNodes,
} from "./access.service";
export type { AccessLevel } from "./access.service";
export { listAudit } from "./audit-query.service";
export { requireRelistable, requireRelistableSubtree } from "./invariant.service";
export type { RelistedEntity } from "./invariant.service";
export { auditStatement, recordAudit } from "./audit.service";
export { FILE_AUDIT_VERBS, auditDownloadStatement, fileAuditStatement } from "./file-audit.service";
export type { AuditChannel, FileAuditEntry, FileAuditTarget, FileAuditVerb } from "./file-audit.service";
export {
  actorFromRefreshCookie,
  actorOfSession,
  authenticateBearer,
  exchangeToken,
  login,
  logout,
  refresh,
  refreshCookieName,
  signInTokenOwner,
} from "./auth.service";
export type { IssuedSession } from "./auth.service";
export { ensureAdministrator } from "./bootstrap.service";
export { createRequestContext, onShard, outsideHold } from "./context";
export type { Actor, ClientInfo, RequestContext } from "./context";
export { ownedByUser } from "./owned.service";
export { ROBOT_TOKEN_PREFIX, actorOfRobotToken, authenticateRobotToken, createRobotToken, listTokens, revokeRobotToken } from "./robot-token.service";
export { SSO_BROWSER_COOKIE, SSO_STATE_TTL_SECONDS, SsoError, finishSso, startSso } from "./sso.service";
export {
  addUsersToGroup,
  listGroupUsers,
  memberOf,
  removeUsersFromGroup,
  userMembersIn,
  userMembershipStatements,
} from "./user-groups.service";
export { SETTINGS_MAX_BYTES, getSettings, patchSettings } from "./user-settings.service";
export type { SettingsKind } from "./user-settings.service";
export { bookmarkNames } from "./bookmarks.service";
export type { BookmarkItem, BookmarkNames } from "./bookmarks.service";
export { createUser, deleteUser, getUser, listUsers, patchUser, requireAdmin, searchUserGroup } from "./user.service";
