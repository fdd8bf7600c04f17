/**
 * The pure part of the sharing domain (decision record 025): constants, types and validation with no bindings and no
 * storage behind them, so the browser bundle and the database schema may import them without pulling in the domain.
 */
export { SHARE_ACL } from "./shortlink-acl";
export type { ShareAcl } from "./shortlink-acl";
